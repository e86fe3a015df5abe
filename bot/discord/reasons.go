package discord

import (
	"errors"

	"github.com/citahq/cita/bot"
)

// bilingual is one reason's text in each language cita answers in.
type bilingual struct{ en, es string }

// in returns the text in lang: Spanish for "es", English otherwise.
func (b bilingual) in(lang string) string {
	if lang == "es" {
		return b.es
	}
	return b.en
}

// The reasons a Discord reply carries instead of an answer, or adds to one.
var (
	// textPrivateHint is Discord's way out of a refusal for want of a common group: the bot's
	// generic text suggests a DM; on Discord `private:True` works too.
	textPrivateHint = bilingual{
		en: " You can also use `/ask` with `private:True`.",
		es: " También puedes usar `/ask` con `private:True`."}
	// textAnnouncement refuses a visible answer in an announcement channel (errAnnouncement).
	textAnnouncement = bilingual{
		en: "What I post here can be published to other servers that follow this announcement channel, so I won't answer visibly here. Use `/ask` with `private:True`.",
		es: "Lo que publique aquí puede difundirse a otros servidores que siguen este canal de anuncios, así que no responderé aquí a la vista de todos. Usa `/ask` con `private:True`."}
	// textAudienceUnknown refuses it in a channel whose audience could not be settled otherwise.
	textAudienceUnknown = bilingual{
		en: "I couldn't check who can see this channel, so I won't answer visibly here. Use `/ask` with `private:True`, or ask an admin to give me the View Channel permission.",
		es: "No pude comprobar quién puede ver este canal, así que no responderé aquí a la vista de todos. Usa `/ask` con `private:True`, o pide a un administrador que me dé el permiso Ver canal."}
	// textNotAllowedGuild refuses an interaction or a message from a guild that is not configured.
	textNotAllowedGuild = bilingual{
		en: "I don't answer in this server: it isn't one of the servers I'm set up for. An admin can add its id to `discord.guild_ids`.",
		es: "No respondo en este servidor: no es uno de los servidores para los que estoy configurado. Un administrador puede añadir su id a `discord.guild_ids`."}
	// textPrivateChannel refuses a question from a group DM or another user's DM (a
	// user-installed command), where cita cannot know who reads the answer.
	textPrivateChannel = bilingual{
		en: "I only answer in the servers I'm set up for and in a direct message with me, where I know who reads the answer.",
		es: "Solo respondo en los servidores para los que estoy configurado y en un mensaje directo conmigo, donde sé quién lee la respuesta."}
	// textNotMember refuses a DM from someone who is a member of no configured guild.
	textNotMember = bilingual{
		en: "I only answer members of the servers I'm set up for, and I couldn't find you in any of them, so I didn't search.",
		es: "Solo respondo a miembros de los servidores para los que estoy configurado, y no te encontré en ninguno, así que no busqué."}
	// textMembershipUnknown refuses a DM when Discord could not confirm the asker's membership.
	textMembershipUnknown = bilingual{
		en: "I couldn't check with Discord that you're a member of a server I'm set up for, so I didn't search. Try again in a minute.",
		es: "No pude comprobar con Discord que eres miembro de un servidor para el que estoy configurado, así que no busqué. Inténtalo de nuevo en un minuto."}
	// textInternalError tells the asker that answering failed on cita's side (a recovered panic).
	textInternalError = bilingual{
		en: "Something went wrong on my side while answering, so I stopped; it has been logged. Try again in a minute.",
		es: "Algo falló por mi parte al responder, así que me detuve; quedó registrado. Inténtalo de nuevo en un minuto."}
)

// withDiscordHint adds textPrivateHint to a reply refused for want of a common group.
func withDiscordHint(out bot.Outgoing) bot.Outgoing {
	if out.Reason == bot.ReasonNoCommonGroup {
		out.Text += textPrivateHint.in(out.Lang)
	}
	return out
}

// channelRefusal explains why no visible answer is given in a channel whose audience could not
// be settled (err from channelScope), in lang.
func channelRefusal(err error, lang string) string {
	if errors.Is(err, errAnnouncement) {
		return textAnnouncement.in(lang)
	}
	return textAudienceUnknown.in(lang)
}

// Texts for button clicks that cannot be honoured.
const (
	textAnswerGone    = "I can't find that answer any more."
	textNotVisible    = "That answer isn't yours to see or rate from here, or you may not read all of its sources."
	textStoreProblem  = "I couldn't reach my records just now. Try again in a minute."
	textThreadsOnlyDM = "Threads are only available in server channels."
)
