package slack

import (
	"context"
	"log/slog"
	"strings"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// maxSuggestedPrompts is how many prompts an assistant thread shows (Slack allows four).
const maxSuggestedPrompts = 4

// popularQuestions is what suggested prompts are drawn from when none are configured;
// bot/pgbot's Store implements it.
type popularQuestions interface {
	PopularQuestions(ctx context.Context, platform, workspace string, scope rag.Scope, limit int) ([]string, error)
}

// assistantStatus texts, shown in the assistant thread while cita works.
var assistantStatus = map[string]string{
	"en": "Searching the handbook…",
	"es": "Buscando en la documentación…",
}

// assistantThreadStarted greets a new assistant thread (Slack's AI app surface) with suggested
// prompts: the configured ones, else the questions most asked in public channels by people in
// the workspace that this user may read the answers of (never what was asked in a DM, a private
// channel, an assistant thread or ephemerally). Nothing is suggested when neither gives any.
func (a *Adapter) assistantThreadStarted(ctx context.Context, team string, t slackevents.AssistantThread) {
	if t.UserID == "" || t.ChannelID == "" || t.ThreadTimeStamp == "" {
		return
	}
	prompts := a.suggestedPrompts(ctx, team, t.UserID)
	if len(prompts) == 0 {
		return
	}
	params := slack.AssistantThreadsSetSuggestedPromptsParameters{ChannelID: t.ChannelID, ThreadTS: t.ThreadTimeStamp, Title: "Try asking"}
	for _, p := range prompts {
		params.Prompts = append(params.Prompts, slack.AssistantThreadsPrompt{Title: truncate(p, 75), Message: p})
	}
	if err := a.api.SetAssistantThreadsSuggestedPromptsContext(ctx, params); err != nil {
		a.logger.WarnContext(ctx, "set suggested prompts", slog.String("channel_id", t.ChannelID), slog.Any("error", err))
	}
}

// suggestedPrompts returns the configured prompts, else user's popular questions.
func (a *Adapter) suggestedPrompts(ctx context.Context, team, user string) []string {
	if len(a.opts.SuggestedPrompts) > 0 {
		return a.opts.SuggestedPrompts[:min(len(a.opts.SuggestedPrompts), maxSuggestedPrompts)]
	}
	pop, ok := a.opts.Store.(popularQuestions)
	if !ok {
		return nil
	}
	scope, err := a.askerScope(ctx, user)
	if err != nil || scope.Empty() {
		return nil // unknown or unmapped: suggest nothing rather than guess
	}
	qs, err := pop.PopularQuestions(ctx, platform, team, scope, maxSuggestedPrompts)
	if err != nil {
		a.logger.WarnContext(ctx, "load popular questions", slog.Any("error", err))
		return nil
	}
	return qs
}

// setStatus shows what cita is doing in an assistant thread. It reports false when Slack
// refuses (not an assistant thread, or the app has no assistant view): the caller then
// answers as in any DM.
func (a *Adapter) setStatus(ctx context.Context, q question, status string) bool {
	err := a.api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: q.channel, ThreadTS: q.threadTS, Status: status})
	if err != nil {
		a.logger.DebugContext(ctx, "set assistant status", slog.String("channel_id", q.channel), slog.Any("error", err))
		return false
	}
	return true
}

// setTitle names an assistant thread after its first question.
func (a *Adapter) setTitle(ctx context.Context, q question, text string) {
	title := strings.Join(strings.Fields(text), " ")
	if title == "" {
		return
	}
	err := a.api.SetAssistantThreadsTitleContext(ctx, slack.AssistantThreadsSetTitleParameters{
		ChannelID: q.channel, ThreadTS: q.threadTS, Title: truncate(title, 80)})
	if err != nil {
		a.logger.WarnContext(ctx, "set assistant thread title", slog.String("channel_id", q.channel), slog.Any("error", err))
	}
}

// answerAssistant answers a question in an assistant thread whose status already shows: the
// thread is titled after its first question, the answer streams natively (see stream), and the
// asker's own groups bound the search (only they see the thread). It reports false when the
// thread is not an assistant thread, before anything was done.
func (a *Adapter) answerAssistant(ctx context.Context, q question) bool {
	text := a.stripMention(q.text)
	lang := rag.AnswerLang(text)
	if !a.setStatus(ctx, q, assistantStatus[lang]) {
		return false
	}
	a.trace("status", q.received)
	s := a.newStream(ctx, q)
	defer func() {
		if p := recover(); p != nil {
			bot.LogPanic(ctx, a.logger, "panic while answering in a slack assistant thread", p, slog.String("channel_id", q.channel), slog.String("user_id", q.user))
			s.finish(ctx, bot.ReasonReply(text, bot.ReasonInternalError))
		}
	}()
	if reason := q.unanswerable(text); reason != bot.ReasonNone {
		s.finish(ctx, bot.ReasonReply(text, reason))
		return true
	}
	in := bot.Incoming{Conversation: a.conversation(q), UserID: q.user, Text: text, Audience: bot.AudiencePrivate,
		ReceivedAt: q.received, Queued: s.queued}
	if answered, err := a.opts.Store.HasTurns(ctx, in.Conversation); err == nil && !answered {
		a.setTitle(ctx, q, text)
	}
	scope, err := a.askerScope(ctx, q.user)
	if err != nil {
		a.logger.ErrorContext(ctx, "resolve slack access", slog.String("channel_id", q.channel), slog.Any("error", err))
		s.finish(ctx, bot.ReasonReply(text, bot.ReasonAccessUnknown))
		return true
	}
	in.Scope = scope
	s.finish(ctx, a.opts.Handler.Handle(ctx, in, s.delta))
	return true
}
