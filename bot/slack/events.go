package slack

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"
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
	files                     int    // files shared with the message (subtype file_share)
	edited                    bool   // the message was edited (message_changed, or app_mention with "edited")
	edit                      string // the edit's ts: one message has one question, and one per edit
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
		q := question{team: ev.TeamID, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp,
			threadTS: thread, dm: dm, files: len(e.Files), received: received}
		if e.Edited != nil {
			// Slack sends app_mention again when a message mentioning cita is edited: the
			// answer to the first wording stands (question.unanswerable).
			q.edited, q.edit = true, e.Edited.TimeStamp
			if q.edit == "" {
				q.edit = e.EventTimeStamp
			}
		}
		if a.firstDelivery(ctx, q) {
			a.answer(ctx, q)
		}
	case *slackevents.MessageEvent:
		if q, ok := a.followUp(ctx, ev.TeamID, e, received); ok && a.firstDelivery(ctx, q) {
			a.answer(ctx, q)
		}
	case *slackevents.AssistantThreadStartedEvent:
		a.assistantThreadStarted(ctx, ev.TeamID, e.AssistantThread)
	case *slackevents.AssistantThreadContextChangedEvent:
		// The user is looking at another channel. cita answers in the assistant thread with
		// the user's own groups wherever they look, so nothing changes.
		a.logger.DebugContext(ctx, "slack assistant context changed", slog.String("channel_id", e.AssistantThread.ChannelID))
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab == "home" && a.opts.Home != nil && e.User != "" {
			a.publishHome(ctx, ev.TeamID, e.User)
		}
	case *slackevents.MemberJoinedChannelEvent:
		a.memberJoined(ctx, ev.TeamID, e.Channel, e.User)
	case *slackevents.MemberLeftChannelEvent:
		a.memberLeft(ctx, e.Channel, e.User)
	case *slackevents.SubteamMembersChangedEvent, *slackevents.SubteamUpdatedEvent, *slackevents.SubteamCreatedEvent:
		a.bump(ctx, bot.SubjectRoles)
	case *slackevents.TeamJoinEvent:
		a.teamJoined(ctx, ev.TeamID, e.User)
	case *slackevents.UserChangeEvent:
		if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok && cb.InnerEvent != nil {
			a.userChanged(ctx, *cb.InnerEvent)
		} else {
			a.bump(ctx, bot.SubjectUsers)
		}
	}
}

// followUp decides whether a message event is addressed to the bot without a mention: a DM, or a
// reply in a thread where the bot already answered that mentions nobody else. Every subtype a
// person writes counts (a plain message, a thread broadcast, a file share, /me, an edit): the
// ones cita cannot answer as a question get a reason instead of silence (see question.unanswerable).
func (a *Adapter) followUp(ctx context.Context, team string, e *slackevents.MessageEvent, received time.Time) (question, bool) {
	q := question{team: team, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, received: received}
	switch e.SubType {
	case "", "thread_broadcast", "file_share", "me_message":
		if e.Message != nil {
			q.files = len(e.Message.Files)
		}
	case "message_changed":
		// An edit: the message is in e.Message. Edits of the bot's own replies (its streaming
		// updates), unfurls and other changes that keep the text are not addressed to it.
		m, prev := e.Message, e.PreviousMessage
		if m == nil || prev == nil || m.Text == prev.Text || m.SubType != "" {
			return question{}, false
		}
		q.user, q.text, q.ts, q.threadTS, q.edited, q.edit = m.User, m.Text, m.Timestamp, m.ThreadTimestamp, true, e.TimeStamp
		if m.Edited != nil && m.Edited.Timestamp != "" {
			q.edit = m.Edited.Timestamp
		}
		if m.BotID != "" {
			return question{}, false
		}
	default:
		return question{}, false // joins, deletions, bot messages, channel changes: nobody asked
	}
	if e.BotID != "" || q.user == "" || q.user == a.botUserID {
		return question{}, false
	}
	if e.ChannelType == "im" {
		q.dm = true
		return q, true
	}
	mentioned := userMention.FindAllStringSubmatch(q.text, -1)
	for _, m := range mentioned {
		if m[1] == a.botUserID {
			return question{}, false // the app_mention event answers it
		}
	}
	if len(mentioned) > 0 || q.threadTS == "" || strings.Contains(q.text, "<!") {
		return question{}, false // talking to someone else, or not in a thread
	}
	answered, err := a.hasTurns(ctx, a.conversation(q))
	if err != nil {
		a.logger.ErrorContext(ctx, "look up thread", slog.String("channel_id", e.Channel), slog.Any("error", err))
		return question{}, false
	}
	return q, answered
}

// firstDelivery reports whether q's message (its channel and ts, and for an edit the edit's
// ts) is met for the first time: Slack may deliver one message under several event ids, which
// the event id's own deduplication lets through. When the store cannot say, it answers: two
// replies beat silence.
func (a *Adapter) firstDelivery(ctx context.Context, q question) bool {
	key := "slack:message:" + q.team + "/" + q.channel + "/" + q.ts
	if q.edited {
		key += "/edit/" + q.edit
	}
	first, err := a.opts.Store.MarkEvent(ctx, key)
	if err != nil {
		a.logger.ErrorContext(ctx, "dedupe slack message", slog.String("channel_id", q.channel), slog.String("ts", q.ts), slog.Any("error", err))
		return true
	}
	if !first {
		a.logger.InfoContext(ctx, "slack message delivered again under another event; already handled",
			slog.String("channel_id", q.channel), slog.String("ts", q.ts))
	}
	return first
}

// hasTurns reports whether cita answered in conv, asking the database a second time after a
// short wait when the first try fails: a message in a thread is addressed to cita only if it
// answered there, so a failed lookup cannot be answered with a reason (it may be people talking
// among themselves) and would leave a real follow-up in silence.
func (a *Adapter) hasTurns(ctx context.Context, conv bot.ConversationKey) (bool, error) {
	answered, err := a.opts.Store.HasTurns(ctx, conv)
	if err == nil {
		return answered, nil
	}
	select {
	case <-ctx.Done():
		return false, err
	case <-time.After(lookupRetryWait):
	}
	return a.opts.Store.HasTurns(ctx, conv)
}

// lookupRetryWait is how long a failed thread lookup waits before its one retry.
const lookupRetryWait = 200 * time.Millisecond

// unanswerable is the reason q gets instead of an answer, or ReasonNone: a file shared without
// a question (cita answers from the indexed documents, not from attachments), or an edited
// message (the answer to the first wording stands; a new message asks again).
func (q question) unanswerable(text string) bot.Reason {
	switch {
	case q.edited:
		return bot.ReasonEdited
	case q.files > 0 && text == "":
		return bot.ReasonAttachmentOnly
	}
	return bot.ReasonNone
}

// conversation is the bot's key for q's thread: in a channel the thread's root; in a DM the DM
// itself unless the question sits in a thread.
func (a *Adapter) conversation(q question) bot.ConversationKey {
	return bot.ConversationKey{Platform: platform, Workspace: q.team, Channel: q.channel, Thread: q.threadTS}
}

// answer shows a placeholder at once, resolves who can read the reply, and streams the answer
// into the placeholder. A channel's readers are read from Slack for every answer; when they
// changed, the answers they may not read are withdrawn first. A panic on the way is logged and
// the asker told.
func (a *Adapter) answer(ctx context.Context, q question) {
	if q.dm && q.threadTS != "" && a.answerAssistant(ctx, q) {
		return // an assistant thread: status, title and native streaming
	}
	r := a.prepareReply(q)
	text := a.stripMention(q.text)
	defer func() {
		if p := recover(); p != nil {
			bot.LogPanic(ctx, a.logger, "panic while answering on slack", p, slog.String("channel_id", q.channel), slog.String("user_id", q.user))
			r.finish(ctx, bot.ReasonReply(text, bot.ReasonInternalError))
		}
	}()
	r.post(ctx, q.ts)
	if reason := q.unanswerable(text); reason != bot.ReasonNone {
		a.logger.InfoContext(ctx, "not answered", slog.String("platform", platform), slog.String("channel_id", q.channel),
			slog.String("user_id", q.user), slog.String("reason", string(reason)))
		r.finish(ctx, bot.ReasonReply(text, reason))
		return
	}
	if q.dm {
		scope, err := a.askerScope(ctx, q.user)
		if err != nil {
			a.accessUnknown(ctx, r, q, text, err)
			return
		}
		r.finish(ctx, a.opts.Handler.Handle(ctx, a.incoming(q, r, text, scope, bot.AudiencePrivate), r.delta))
		return
	}
	// An error here includes bot.ErrReadersMoved: other replicas kept recording changes of the
	// readers, and an answer from these could use what a newcomer may not read.
	aud, version, err := a.resolveChannel(ctx, q.team, q.channel, false)
	if err != nil {
		a.accessUnknown(ctx, r, q, text, err)
		return
	}
	in := a.incoming(q, r, text, aud.scope, bot.AudienceChannel)
	in.Public = aud.public
	out := a.opts.Handler.Handle(ctx, in, r.delta)
	r.finish(ctx, out)
	if out.AnswerID != 0 {
		a.recheckChannel(ctx, q, version)
	}
}

// incoming is the bot turn of q, replying through r.
func (a *Adapter) incoming(q question, r *reply, text string, scope rag.Scope, audience bot.Audience) bot.Incoming {
	return bot.Incoming{Conversation: a.conversation(q), UserID: q.user, Text: text, Scope: scope, Audience: audience,
		ReceivedAt: q.received, Queued: r.queued, ReplyRef: r.ts, Recorded: func(id int64) { r.answer.Store(id) }}
}

// accessUnknown replies that access could not be resolved: never search without knowing who
// reads the reply.
func (a *Adapter) accessUnknown(ctx context.Context, r *reply, q question, text string, err error) {
	a.logger.ErrorContext(ctx, "resolve slack access", slog.String("channel_id", q.channel), slog.Any("error", err))
	r.finish(ctx, bot.ReasonReply(text, bot.ReasonAccessUnknown))
}

// recheckChannel closes the race of an answer in flight while the channel's readers changed:
// when another replica recorded new readers between this answer's check (version) and its
// saving, that replica's withdrawal may have run before the answer existed, so the channel is
// checked again with fresh readers. (Either the other replica's check sees this saved answer,
// or this read sees its new version.)
func (a *Adapter) recheckChannel(ctx context.Context, q question, version int64) {
	v, err := a.audienceVersions(ctx, q.channel)
	if err == nil && v.channel == version {
		return
	}
	if _, _, err := a.resolveChannel(ctx, q.team, q.channel, true); err != nil {
		a.logger.ErrorContext(ctx, "recheck slack channel after answering; its next question checks again", slog.String("channel_id", q.channel), slog.Any("error", err))
	}
}

// bump records that subjects of the installation changed, for every replica. When that fails
// the other replicas are not told, so this one at least forgets what it cached; theirs expire
// within ScopeTTL.
func (a *Adapter) bump(ctx context.Context, subjects ...string) {
	if err := a.opts.Store.BumpAudience(ctx, platform, a.teamID, subjects...); err != nil {
		a.logger.ErrorContext(ctx, "record slack audience change; other replicas see it within scope_cache_ttl", slog.Any("subjects", subjects), slog.Any("error", err))
		a.people.Clear()
		a.strangers.Clear()
		a.roles.Clear()
		a.fullScopes.Clear()
	}
}

// userChanged handles user_change, which Slack sends for every profile edit (status, avatar):
// the users version is bumped only when something access depends on changed (e-mail, guest,
// bot or deactivated), or when this replica cannot tell.
func (a *Adapter) userChanged(ctx context.Context, raw json.RawMessage) {
	var body struct {
		User slack.User `json:"user"`
	}
	if err := json.Unmarshal(raw, &body); err == nil && body.User.ID != "" {
		if v, err := a.audienceVersions(ctx, ""); err == nil {
			if d, ok := a.people.Get("", v.users); ok {
				if old, ok := d[body.User.ID]; ok && samePerson(old, a.accountOf(body.User)) {
					return
				}
			}
		}
	}
	a.bump(ctx, bot.SubjectUsers)
}

// samePerson reports whether two records of an account grant the same access.
func samePerson(x, y person) bool {
	return x.deleted == y.deleted && x.identity.Guest == y.identity.Guest && x.identity.Bot == y.identity.Bot &&
		strings.EqualFold(strings.TrimSpace(x.identity.Email), strings.TrimSpace(y.identity.Email))
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
