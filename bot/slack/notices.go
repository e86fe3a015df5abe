package slack

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

var _ bot.NoticePoster = (*Adapter)(nil)

// PostNotice implements bot.NoticePoster: it posts the source-change notice in the
// conversation's thread (in the DM itself when it has none), as plain mrkdwn with titles
// escaped, so a title can neither format nor mention anyone.
//
// A document is named only when everyone who may read the notice, now or later, may read it
// (bot.SourceNotice.NamedFor): a notice is never withdrawn, and anyone Slack lets into a
// channel later (a guest holding none of the groups) reads its history, so a notice in a
// channel names no document; in a direct message, whose one reader is read from Slack for the
// notice, it names what they may read now. When that cannot be read, nothing is named.
func (a *Adapter) PostNotice(ctx context.Context, conv bot.ConversationKey, notice bot.SourceNotice) error {
	notice = notice.NamedFor(a.noticeReaders(ctx, conv.Channel))
	text := bot.SourceNoticeText(notice, escape, truncate)
	opts := []slack.MsgOption{slack.MsgOptionText(text, false)}
	if conv.Thread != "" {
		opts = append(opts, slack.MsgOptionTS(conv.Thread))
	}
	err := withRetry(ctx, func() error {
		_, _, err := a.api.PostMessageContext(ctx, conv.Channel, opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("slack chat.postMessage %s: %w", conv.Channel, err)
	}
	return nil
}

// noticeReaders returns the scopes of everyone who may read channel, now or later: a direct
// message's person; nil for any other conversation (whoever joins it later may read nothing),
// or when Slack or the database cannot say.
func (a *Adapter) noticeReaders(ctx context.Context, channel string) []rag.Scope {
	var info *slack.Channel
	err := withRetry(ctx, func() (err error) {
		info, err = a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		return err
	})
	if err == nil && !info.IsIM {
		return nil
	}
	var v versions
	var aud audience
	if err == nil {
		v, err = a.audienceVersions(ctx, channel)
	}
	if err == nil {
		aud, err = a.channelAudience(ctx, v, channel)
	}
	if err != nil {
		a.logger.WarnContext(ctx, "read who reads a slack conversation for a source-change notice; it names no document",
			slog.String("channel_id", channel), slog.Any("error", err))
		return nil
	}
	return aud.readers
}
