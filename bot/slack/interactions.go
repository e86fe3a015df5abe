package slack

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// handleInteraction processes a click on the buttons under an answer.
func (a *Adapter) handleInteraction(ctx context.Context, cb slack.InteractionCallback) {
	if cb.Type != slack.InteractionTypeBlockActions {
		return
	}
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	thread := cb.Container.ThreadTs
	if thread == "" {
		thread = cb.Message.ThreadTimestamp
	}
	conv := bot.ConversationKey{Platform: platform, Workspace: cb.Team.ID, Channel: channel, Thread: thread}
	defer func() {
		if p := recover(); p != nil {
			bot.LogPanic(ctx, a.logger, "panic on a slack button", p, slog.String("channel_id", channel), slog.String("user_id", cb.User.ID))
			a.ephemeral(ctx, channel, cb.User.ID, thread, slack.MsgOptionText(bot.ReasonText("en", bot.ReasonInternalError), false))
		}
	}()
	if len(cb.ActionCallback.BlockActions) > 0 && !a.readsDM(ctx, channel, cb.User.ID) {
		a.ephemeral(ctx, channel, cb.User.ID, thread, slack.MsgOptionText(notYoursText, false))
		return
	}
	for _, act := range cb.ActionCallback.BlockActions {
		if act.ActionID == actionFeedback {
			if id, rating, ok := parseFeedback(act.Value); ok {
				a.feedback(ctx, conv, cb.User.ID, id, rating, thread)
			}
			continue
		}
		id, err := strconv.ParseInt(act.Value, 10, 64)
		if err != nil {
			continue // not one of cita's buttons
		}
		switch act.ActionID {
		case actionHelpful, actionNotHelpful:
			rating := 1
			if act.ActionID == actionNotHelpful {
				rating = -1
			}
			a.feedback(ctx, conv, cb.User.ID, id, rating, thread)
		case actionExplain:
			a.explain(ctx, conv, cb.User.ID, id, thread)
		case actionShareGap:
			lang := "en"
			if act.Text.Text == bot.ShareGapButton("es") {
				lang = "es"
			}
			a.shareGap(ctx, conv, cb.User.ID, id, thread, lang)
		}
	}
}

// notYoursText answers a click that cannot be the clicker's: an answer in someone else's direct
// message, or one whose conversation cannot be checked.
const notYoursText = "I can't show that: it isn't an answer you were shown."

// readsDM reports whether user reads channel as far as a direct message goes: a DM with the bot
// (conversations.info says is_im) is read by its person alone. Slack sends a click only to who
// sees the message, but the click's channel and answer id are the client's word: a forged one
// must not open someone else's DM answer. Other conversations are left to the store's check
// of the clicker's groups; a DM that cannot be looked up is refused.
func (a *Adapter) readsDM(ctx context.Context, channel, user string) bool {
	if !strings.HasPrefix(channel, "D") {
		return true
	}
	var info *slack.Channel
	err := withRetry(ctx, func() (err error) {
		info, err = a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		return err
	})
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && se.Err == "missing_scope" {
		// An installation from before the manifest asked for im:read: the store's check (a DM
		// answer is visible to its asker only) decides alone.
		a.logger.WarnContext(ctx, "slack app lacks the im:read scope: reinstall it from deploy/slack-manifest.yaml; the answer's own check decides",
			slog.String("channel_id", channel))
		return true
	}
	if err != nil {
		a.logger.WarnContext(ctx, "check who reads a slack DM before a click; refusing it", slog.String("channel_id", channel), slog.Any("error", err))
		return false
	}
	if !info.IsIM {
		return true
	}
	return info.User == user
}

// parseFeedback reads a feedback_buttons value: "up:<id>" rates the answer 1, "down:<id>" -1.
func parseFeedback(value string) (id int64, rating int, ok bool) {
	switch {
	case strings.HasPrefix(value, feedbackUp):
		value, rating = strings.TrimPrefix(value, feedbackUp), 1
	case strings.HasPrefix(value, feedbackDown):
		value, rating = strings.TrimPrefix(value, feedbackDown), -1
	default:
		return 0, 0, false
	}
	id, err := strconv.ParseInt(value, 10, 64)
	return id, rating, err == nil && id > 0
}

// withdrawnText answers a click on a withdrawn answer.
const withdrawnText = "That answer was withdrawn: someone who can read this conversation now may not read its documents. Ask me in a direct message."

func (a *Adapter) feedback(ctx context.Context, conv bot.ConversationKey, user string, answerID int64, rating int, thread string) {
	err := a.opts.Store.RecordFeedback(ctx, bot.Feedback{AnswerID: answerID, Conversation: conv, UserID: user, Rating: rating})
	text := "Thanks, noted: this helps improve the answers."
	switch {
	case errors.Is(err, bot.ErrNotVisible), errors.Is(err, bot.ErrAnswerNotFound):
		text = "You can only rate answers you were shown."
	case err != nil:
		a.logger.ErrorContext(ctx, "record feedback", slog.Int64("answer_id", answerID), slog.Any("error", err))
		text = "I couldn't save your rating. Try again in a minute."
	default:
		a.logger.InfoContext(ctx, "feedback", slog.Int64("answer_id", answerID), slog.Int("rating", rating))
	}
	a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText(text, false))
}

// explain shows the clicker how an answer was found, if they may see it: the store checks the
// conversation and the clicker's own current groups against the answer (bot.Store.LoadTrace).
func (a *Adapter) explain(ctx context.Context, conv bot.ConversationKey, user string, answerID int64, thread string) {
	scope, err := a.askerScope(ctx, user)
	var rec *bot.AnswerRecord
	if err == nil {
		rec, err = a.opts.Store.LoadTrace(ctx, answerID, bot.Viewer{Conversation: conv, UserID: user, Scope: scope})
	}
	switch {
	case errors.Is(err, bot.ErrWithdrawn):
		a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText(withdrawnText, false))
		return
	case errors.Is(err, bot.ErrAnswerNotFound), errors.Is(err, bot.ErrNotVisible):
		a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText("I can't show how I answered that: it isn't an answer you were shown, or you may not read all of its sources.", false))
		return
	case err != nil:
		a.logger.ErrorContext(ctx, "load answer trace", slog.Int64("answer_id", answerID), slog.Any("error", err))
		a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText("I couldn't load how I answered. Try again in a minute.", false))
		return
	}
	blocks, fallback := renderExplain(rec)
	a.ephemeral(ctx, conv.Channel, user, thread, slack.MsgOptionText(fallback, false), slack.MsgOptionBlocks(blocks...))
}

// ephemeral posts a message only user sees, in thread when set.
func (a *Adapter) ephemeral(ctx context.Context, channel, user, thread string, opts ...slack.MsgOption) {
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	err := withRetry(ctx, func() error {
		_, err := a.api.PostEphemeralContext(ctx, channel, user, opts...)
		return err
	})
	if err != nil {
		a.logger.ErrorContext(ctx, "post slack ephemeral", slog.String("channel_id", channel), slog.Any("error", err))
	}
}
