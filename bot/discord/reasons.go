package discord

import (
	"errors"

	"github.com/citahq/cita/bot"
)

// withDiscordHint adds Discord's way out to a reply refused for want of a common group: the
// bot's generic text suggests a DM, and on Discord `private:True` works too.
func withDiscordHint(out bot.Outgoing) bot.Outgoing {
	if out.Reason == bot.ReasonNoCommonGroup {
		if out.Lang == "es" {
			out.Text += " También puedes usar `/ask` con `private:True`."
		} else {
			out.Text += " You can also use `/ask` with `private:True`."
		}
	}
	return out
}

// channelRefusal explains why no visible answer is given in a channel whose audience could not
// be settled (err from channelScope), in lang.
func channelRefusal(err error, lang string) string {
	if errors.Is(err, errAnnouncement) {
		if lang == "es" {
			return "Lo que publique aquí puede difundirse a otros servidores que siguen este canal de anuncios, así que no responderé aquí a la vista de todos. Usa `/ask` con `private:True`."
		}
		return "What I post here can be published to other servers that follow this announcement channel, so I won't answer visibly here. Use `/ask` with `private:True`."
	}
	if lang == "es" {
		return "No pude comprobar quién puede ver este canal, así que no responderé aquí a la vista de todos. Usa `/ask` con `private:True`, o pide a un administrador que me dé el permiso Ver canal."
	}
	return "I couldn't check who can see this channel, so I won't answer visibly here. Use `/ask` with `private:True`, or ask an admin to give me the View Channel permission."
}

// notAllowedGuildText refuses an interaction or a message from a guild that is not configured.
func notAllowedGuildText(lang string) string {
	if lang == "es" {
		return "No respondo en este servidor: no es uno de los servidores para los que estoy configurado. Un administrador puede añadir su id a `discord.guild_ids`."
	}
	return "I don't answer in this server: it isn't one of the servers I'm set up for. An admin can add its id to `discord.guild_ids`."
}

// privateChannelText refuses a question from a group DM or another user's DM (a user-installed
// command), where cita cannot know who reads the answer.
func privateChannelText(lang string) string {
	if lang == "es" {
		return "Solo respondo en los servidores para los que estoy configurado y en un mensaje directo conmigo, donde sé quién lee la respuesta."
	}
	return "I only answer in the servers I'm set up for and in a direct message with me, where I know who reads the answer."
}

// notMemberText refuses a DM from someone who is a member of no configured guild.
func notMemberText(lang string) string {
	if lang == "es" {
		return "Solo respondo a miembros de los servidores para los que estoy configurado, y no te encontré en ninguno, así que no busqué."
	}
	return "I only answer members of the servers I'm set up for, and I couldn't find you in any of them, so I didn't search."
}

// membershipUnknownText refuses a DM when Discord could not confirm the asker's membership.
func membershipUnknownText(lang string) string {
	if lang == "es" {
		return "No pude comprobar con Discord que eres miembro de un servidor para el que estoy configurado, así que no busqué. Inténtalo de nuevo en un minuto."
	}
	return "I couldn't check with Discord that you're a member of a server I'm set up for, so I didn't search. Try again in a minute."
}

// internalErrorText tells the asker that answering failed on cita's side (a recovered panic).
func internalErrorText(lang string) string {
	if lang == "es" {
		return "Algo falló por mi parte al responder, así que me detuve; quedó registrado. Inténtalo de nuevo en un minuto."
	}
	return "Something went wrong on my side while answering, so I stopped; it has been logged. Try again in a minute."
}

// Texts for button clicks that cannot be honoured.
const (
	textAnswerGone    = "I can't find that answer any more."
	textNotVisible    = "That answer isn't yours to see or rate from here, or you may not read all of its sources."
	textStoreProblem  = "I couldn't reach my records just now. Try again in a minute."
	textThreadsOnlyDM = "Threads are only available in server channels."
)
