package slack

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack/slackevents"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// userMention matches <@U123> and <@U123|name> in message text.
var userMention = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)

// question is an addressed message, before access is resolved.
type question struct {
	team, channel, user, text string
	ts, threadTS              string // the message and the thread it belongs to ("" when none)
	dm                        bool
	received                  time.Time
}

// handleEvent processes one Events API callback (from Socket Mode or HTTP) after it was
// acknowledged. Redeliveries of an event id already seen are dropped.
func (a *Adapter) handleEvent(ctx context.Context, eventID string, ev slackevents.EventsAPIEvent, received time.Time) {
	if ev.Type != slackevents.CallbackEvent {
		return
	}
	first, err := a.opts.Store.MarkEvent(ctx, "slack:"+eventID)
	if err != nil {
		a.logger.ErrorContext(ctx, "dedupe slack event", slog.String("event_id", eventID), slog.Any("error", err))
	} else if !first {
		a.logger.InfoContext(ctx, "slack event redelivered; already handled", slog.String("event_id", eventID))
		return
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == a.botUserID {
			return
		}
		dm := strings.HasPrefix(e.Channel, "D")
		thread := e.ThreadTimeStamp
		if thread == "" && !dm {
			thread = e.TimeStamp // a channel question starts a thread; a DM's stays top level
		}
		a.answer(ctx, question{team: ev.TeamID, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp,
			threadTS: thread, dm: dm, received: received})
	case *slackevents.MessageEvent:
		if q, ok := a.followUp(ctx, ev.TeamID, e, received); ok {
			a.answer(ctx, q)
		}
	case *slackevents.MemberJoinedChannelEvent:
		a.forgetChannel(e.Channel)
	case *slackevents.MemberLeftChannelEvent:
		a.forgetChannel(e.Channel)
	case *slackevents.SubteamMembersChangedEvent:
		a.forgetUserGroups()
	}
}

// followUp decides whether a message event is addressed to the bot without a mention: a DM, or a
// reply in a thread where the bot already answered that mentions nobody else.
func (a *Adapter) followUp(ctx context.Context, team string, e *slackevents.MessageEvent, received time.Time) (question, bool) {
	if (e.SubType != "" && e.SubType != "thread_broadcast") || e.BotID != "" || e.User == "" || e.User == a.botUserID {
		return question{}, false
	}
	q := question{team: team, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, received: received}
	if e.ChannelType == "im" {
		q.dm = true
		return q, true
	}
	mentioned := userMention.FindAllStringSubmatch(e.Text, -1)
	for _, m := range mentioned {
		if m[1] == a.botUserID {
			return question{}, false // the app_mention event answers it
		}
	}
	if len(mentioned) > 0 || e.ThreadTimeStamp == "" || strings.Contains(e.Text, "<!") {
		return question{}, false // talking to someone else, or not in a thread
	}
	answered, err := a.opts.Store.HasTurns(ctx, a.conversation(q))
	if err != nil {
		a.logger.ErrorContext(ctx, "look up thread", slog.String("channel_id", e.Channel), slog.Any("error", err))
		return question{}, false
	}
	return q, answered
}

// conversation is the bot's key for q's thread: in a channel the thread's root; in a DM the DM
// itself unless the question sits in a thread.
func (a *Adapter) conversation(q question) bot.ConversationKey {
	return bot.ConversationKey{Platform: "slack", Workspace: q.team, Channel: q.channel, Thread: q.threadTS}
}

// answer shows a placeholder at once, resolves who will see the reply, and streams the answer
// into the placeholder.
func (a *Adapter) answer(ctx context.Context, q question) {
	r := a.newReply(ctx, q)
	var scope rag.Scope
	var err error
	audience := bot.AudienceChannel
	if q.dm {
		audience = bot.AudiencePrivate
		scope, err = a.askerScope(ctx, q.user)
	} else {
		scope, err = a.channelScope(ctx, q.channel)
	}
	text := a.stripMention(q.text)
	if err != nil {
		// Never search without knowing who reads the reply.
		a.logger.ErrorContext(ctx, "resolve slack access", slog.String("channel_id", q.channel), slog.Any("error", err))
		r.finish(ctx, bot.ReasonReply(text, bot.ReasonAccessUnknown))
		return
	}
	in := bot.Incoming{Conversation: a.conversation(q), UserID: q.user, Text: text,
		Scope: scope, Audience: audience, ReceivedAt: q.received, Queued: r.queued}
	r.finish(ctx, a.opts.Handler.Handle(ctx, in, r.delta))
}

// stripMention removes the bot's own mention from a message.
func (a *Adapter) stripMention(text string) string {
	text = userMention.ReplaceAllStringFunc(text, func(m string) string {
		if sub := userMention.FindStringSubmatch(m); sub[1] == a.botUserID {
			return ""
		}
		return m
	})
	return strings.TrimSpace(text)
}
