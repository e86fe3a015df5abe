package discord

import (
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

// channelUnreadableText explains why no visible answer is given when the channel's audience
// cannot be read from Discord.
func channelUnreadableText(lang string) string {
	if lang == "es" {
		return "No pude comprobar quién puede ver este canal, así que no responderé aquí a la vista de todos. Usa `/ask` con `private:True`, o pide a un administrador que me dé el permiso Ver canal o que configure `discord.channel_groups`."
	}
	return "I couldn't check who can see this channel, so I won't answer visibly here. Use `/ask` with `private:True`, or ask an admin to give me the View Channel permission or set `discord.channel_groups` for this channel."
}

// Texts for button clicks that cannot be honoured.
const (
	textAnswerGone    = "I can't find that answer any more."
	textNotVisible    = "That answer isn't yours to see or rate from here, or you may not read all of its sources."
	textStoreProblem  = "I couldn't reach my records just now. Try again in a minute."
	textThreadsOnlyDM = "Threads are only available in server channels."
)
