package discord

import (
	"context"

	"github.com/citahq/cita/bot"
)

// Handler is what the adapter needs from the platform-neutral bot: answer a turn (rate limit,
// memory, answer record, never-silent reasons) and reach the store for votes, "how I answered"
// and event dedupe. *bot.Handler satisfies it.
type Handler interface {
	Handle(ctx context.Context, in bot.Incoming, onDelta func(string)) bot.Outgoing
	Store() bot.Store
}

// platform is the ConversationKey.Platform of every Discord conversation.
const platform = "discord"

// conversationKey names a Discord conversation. Threads opened from an answer have the answer
// message's id, so a thread and the answer it grew from share one key: {guild, parent channel,
// thread id}. A visible answer in a channel is keyed by its own message id as the thread;
// private answers and DMs use the channel with no thread.
func conversationKey(guildID, channelID, threadID string) bot.ConversationKey {
	return bot.ConversationKey{Platform: platform, Workspace: guildID, Channel: channelID, Thread: threadID}
}
