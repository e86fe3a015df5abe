package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// actionShareGap is the "Tell the document owners" button; its value is the answer id.
const actionShareGap = "cita_share_gap"

// maxDigestChars bounds a digest's text (Slack truncates a message's text at 40,000).
const maxDigestChars = 39000

// shareGapBlocks are who will see a shared question, then the button.
func shareGapBlocks(answerID int64, lang string) []slack.Block {
	id := strconv.FormatInt(answerID, 10)
	return []slack.Block{
		slack.NewContextBlock("cita_share_note_"+id, slack.NewTextBlockObject(slack.MarkdownType, escape(bot.ShareGapNote(lang)), false, false)),
		slack.NewActionBlock("cita_share_"+id,
			slack.NewButtonBlockElement(actionShareGap, id, slack.NewTextBlockObject(slack.PlainTextType, bot.ShareGapButton(lang), false, false))),
	}
}

// shareGap records the clicker's consent to share their question; the store refuses anyone
// but its asker, and any reply but a declined or hedged one.
func (a *Adapter) shareGap(ctx context.Context, conv bot.ConversationKey, user string, answerID int64, thread, lang string) {
	if a.opts.Gaps == nil {
		return
	}
	err := a.opts.Gaps.ShareGap(ctx, answerID, user)
	if err != nil && !errors.Is(err, bot.ErrNotShareable) {
		a.logger.ErrorContext(ctx, "share gap question", slog.Int64("answer_id", answerID), slog.Any("error", err))
	} else if err == nil {
		a.logger.InfoContext(ctx, "gap question shared", slog.Int64("answer_id", answerID))
	}
	a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText(bot.ShareGapReply(lang, err), false))
}

var _ bot.GapPoster = (*Adapter)(nil)

// GapPlace implements bot.GapPoster: a public question's follow-up goes to its thread, read by
// the channel's readers now (asked from Slack, as for an answer); a shared one to its asker's
// DM with the bot, read by the asker alone.
func (a *Adapter) GapPlace(ctx context.Context, g bot.OpenGap) (bot.GapPlace, error) {
	if !g.Shared {
		aud, _, err := a.resolveChannel(ctx, g.Conversation.Workspace, g.Conversation.Channel, false)
		if err != nil {
			return bot.GapPlace{}, err
		}
		return bot.GapPlace{Conversation: g.Conversation, Scope: aud.scope, Audience: bot.AudienceChannel, Public: aud.public}, nil
	}
	scope, err := a.askerScope(ctx, g.Asker)
	if err != nil {
		return bot.GapPlace{}, err
	}
	var channel string
	err = withRetry(ctx, func() error {
		ch, _, _, err := a.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{g.Asker}, ReturnIM: true})
		if err == nil {
			channel = ch.ID
		}
		return err
	})
	if err != nil {
		return bot.GapPlace{}, fmt.Errorf("slack conversations.open %s: %w", g.Asker, err)
	}
	conv := bot.ConversationKey{Platform: platform, Workspace: g.Conversation.Workspace, Channel: channel}
	return bot.GapPlace{Conversation: conv, Scope: scope, Audience: bot.AudiencePrivate}, nil
}

// PostGapFollowUp implements bot.GapPoster: the answer, introduced as the answer to the
// question asked before, is posted as a new message there, each write checked against the
// answer's withdrawal and the channel's audience like any answer's (writeAnswer).
func (a *Adapter) PostGapFollowUp(ctx context.Context, place bot.GapPlace, g bot.OpenGap, out bot.Outgoing) error {
	out.Text = bot.GapFollowUpIntro(out.Lang, g.Question, g.Shared) + "\n\n" + out.Text
	r := &reply{a: a, channel: place.Conversation.Channel, threadTS: place.Conversation.Thread, received: time.Now(),
		writer: newThrottledWriter(), style: a.style(false)}
	r.answer.Store(out.AnswerID)
	return r.write(ctx, out.AnswerID, out)
}

var _ bot.GapDigestPoster = (*Adapter)(nil)

// PostGapDigest implements bot.GapDigestPoster: the digest is built for the channel's readers
// now (asked from Slack, as for an answer) and this workspace's questions, then posted as plain
// text (escaped: no formatting, no mention).
func (a *Adapter) PostGapDigest(ctx context.Context, channel string, build bot.DigestBuilder) error {
	aud, _, err := a.resolveChannel(ctx, a.teamID, channel, false)
	if err != nil {
		return fmt.Errorf("who reads %s: %w", channel, err)
	}
	text, err := build(ctx, aud.scope, platform, a.teamID, !aud.outsiders)
	if err != nil {
		return err
	}
	return withRetry(ctx, func() error {
		_, _, err := a.api.PostMessageContext(ctx, channel, slack.MsgOptionText(escape(truncate(text, maxDigestChars)), false))
		return err
	})
}
