package discord

import (
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/snowflake"
)

var _ bot.NoticePoster = (*Adapter)(nil)

// PostNotice implements bot.NoticePoster: it posts the source-change notice where the
// conversation continues. A visible answer's conversation is keyed by the answer message's id,
// which is also the id of a thread opened from it: the notice goes in that thread when it
// exists, else in the channel as a reply to the answer (or plainly when the answer's message is
// unknown or gone). A DM has no thread: the notice goes in the DM. Titles are escaped and no
// mention pings anyone.
func (a *Adapter) PostNotice(ctx context.Context, conv bot.ConversationKey, notice bot.SourceNotice) error {
	text := bot.SourceNoticeText(notice, escapeMarkdown, truncateUnits)
	msg := &discordgo.MessageSend{Content: truncateUnits(text, maxContent), AllowedMentions: noMentions}
	channel := conv.Channel
	if conv.Thread != "" && snowflake.Valid(conv.Thread) {
		if ch, err := a.session.Channel(conv.Thread, discordgo.WithContext(ctx)); err == nil && ch.IsThread() {
			channel = ch.ID
		} else {
			msg.Reference = &discordgo.MessageReference{MessageID: conv.Thread, ChannelID: conv.Channel, FailIfNotExists: new(bool)}
		}
	}
	if _, err := a.session.ChannelMessageSendComplex(channel, msg, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("discord post notice in %s: %w", channel, err)
	}
	return nil
}
