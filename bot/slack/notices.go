package slack

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

var _ bot.NoticePoster = (*Adapter)(nil)

// PostNotice implements bot.NoticePoster: it posts the source-change notice in the
// conversation's thread (in the DM itself when it has none), as plain mrkdwn with titles
// escaped, so a title can neither format nor mention anyone.
func (a *Adapter) PostNotice(ctx context.Context, conv bot.ConversationKey, notice bot.SourceNotice) error {
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
