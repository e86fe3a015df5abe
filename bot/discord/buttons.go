package discord

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// threadArchiveMinutes is how long an idle answer thread stays open (one day).
const threadArchiveMinutes = 1440

// onButton completes a click on an answer's button (deferred, ephemeral): a vote is stored, the
// explanation shown, or a thread opened. Every path ends in a message to the clicker.
func (a *Adapter) onButton(ctx context.Context, i *discordgo.Interaction, act buttonAction) {
	userID, roles := asker(i)
	if act.Kind == "thread" {
		a.editReason(ctx, i, a.threadFromButton(ctx, i))
		return
	}
	conv := a.clickedConversation(ctx, i)
	store := a.handler.Store()
	if store == nil {
		a.editReason(ctx, i, textStoreProblem)
		return
	}
	switch act.Kind {
	case "share":
		a.shareGap(ctx, i, userID, act.AnswerID)
	case "up", "down":
		fb := bot.Feedback{AnswerID: act.AnswerID, Conversation: conv, UserID: userID, Rating: 1}
		mark := "👍"
		if act.Kind == "down" {
			fb.Rating, mark = -1, "👎"
		}
		if err := store.RecordFeedback(ctx, fb); err != nil {
			a.editReason(ctx, i, a.storeErrorText(ctx, act.AnswerID, err))
			return
		}
		a.logger.InfoContext(ctx, "discord feedback", slog.Int64("answer_id", act.AnswerID), slog.Int("rating", fb.Rating))
		thanks := "Thanks, your " + mark + " is recorded."
		if _, canComment := store.(commenter); canComment && fb.Rating < 0 {
			// What was wrong goes with the answer into `cita feedback export`.
			a.editWithComponents(ctx, i, thanks+" Tell me what was wrong, and it goes to whoever keeps the documents.", whyButton(act.AnswerID))
			return
		}
		a.editReason(ctx, i, thanks)
	case "how":
		// The clicker's own current groups, checked against the answer by the store.
		scope, err := a.clickerScope(ctx, i, userID, roles)
		if err != nil {
			a.editReason(ctx, i, a.dmRefusal(ctx, userID, "", err))
			return
		}
		viewer := bot.Viewer{Conversation: conv, UserID: userID, Scope: scope}
		rec, err := store.LoadTrace(ctx, act.AnswerID, viewer)
		if err != nil {
			a.editReason(ctx, i, a.storeErrorText(ctx, act.AnswerID, err))
			return
		}
		parts := splitText(explainText(rec), maxContent)
		if len(parts) > maxFollowUps+1 {
			parts = parts[:maxFollowUps+1]
		}
		a.editReason(ctx, i, parts[0])
		a.sendFollowUps(ctx, i, parts[1:], true)
	}
}

// clickedConversation is the conversation of the message whose button was clicked: a visible
// answer is keyed by its own id, an ephemeral one by its channel alone (see keyFor).
func (a *Adapter) clickedConversation(ctx context.Context, i *discordgo.Interaction) bot.ConversationKey {
	thread := ""
	if i.Message != nil && i.Message.Flags&discordgo.MessageFlagsEphemeral == 0 {
		thread = i.Message.ID
	}
	return a.keyFor(ctx, i.GuildID, i.ChannelID, thread)
}

// storeErrorText turns a store error on a click into words, logging unexpected ones.
func (a *Adapter) storeErrorText(ctx context.Context, answerID int64, err error) string {
	switch {
	case errors.Is(err, bot.ErrAnswerNotFound):
		return textAnswerGone
	case errors.Is(err, bot.ErrNotVisible):
		return textNotVisible
	}
	a.logger.ErrorContext(ctx, "discord answer record", slog.Int64("answer_id", answerID), slog.Any("error", err))
	return textStoreProblem
}

// threadFromButton opens a thread from the answer whose button was clicked and says where.
func (a *Adapter) threadFromButton(ctx context.Context, i *discordgo.Interaction) string {
	if i.GuildID == "" || i.Message == nil {
		return textThreadsOnlyDM
	}
	name := "Follow-ups"
	if first, _, _ := strings.Cut(messageText(i.Message), "\n"); strings.HasPrefix(first, "> ") {
		name = strings.TrimPrefix(first, "> ")
	}
	th, err := a.openThread(ctx, i.ChannelID, i.Message.ID, name)
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Message != nil && rest.Message.Code == discordgo.ErrCodeThreadAlreadyCreatedForThisMessage {
		return "This answer already has a thread: <#" + i.Message.ID + ">."
	}
	if err != nil {
		a.logger.WarnContext(ctx, "discord open thread", slog.String("message_id", i.Message.ID), slog.Any("error", err))
		return "I couldn't open a thread here (I may lack the Create Public Threads permission). Use `/ask` in the channel instead."
	}
	return "Thread opened: <#" + th.ID + ">."
}

// openThread starts a thread from an answer message; its id is the message's, so it continues
// the answer's conversation. It greets the thread with how to ask follow-ups.
func (a *Adapter) openThread(ctx context.Context, channelID, messageID, name string) (*discordgo.Channel, error) {
	name = strings.Join(strings.Fields(strings.ReplaceAll(name, "\\", "")), " ")
	if units(name) > 100 {
		name = truncateUnits(name, 99) + "…"
	}
	if name == "" {
		name = "Follow-ups"
	}
	th, err := a.session.MessageThreadStartComplex(channelID, messageID, &discordgo.ThreadStart{
		Name: name, AutoArchiveDuration: threadArchiveMinutes,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	a.markThread(th.ID)
	hint := "Ask follow-up questions with `/ask` here; I'll remember this conversation."
	if a.opts.MessageContent && a.opts.Mode == ModeGateway {
		hint = "Reply here with follow-up questions; I'll remember this conversation."
	}
	if _, err := a.session.ChannelMessageSendComplex(th.ID, &discordgo.MessageSend{Content: hint, AllowedMentions: noMentions}, discordgo.WithContext(ctx)); err != nil {
		a.logger.WarnContext(ctx, "discord thread greeting", slog.String("thread_id", th.ID), slog.Any("error", err))
	}
	return th, nil
}
