package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/time/rate"

	"github.com/citahq/cita/bot"
)

// Slack's rate tiers for native streaming, per method, workspace and app: chat.startStream and
// chat.stopStream are Tier 2 (20+ a minute), chat.appendStream Tier 4 (100+ a minute). One
// stream spends one start and one stop, so one token of streamTier covers both.
var (
	streamTier = rate.Limit(20.0 / 60)
	appendTier = rate.Limit(100.0 / 60)
)

// streamLimits are the adapter's budgets for native streaming. They are per process: several
// replicas may together exceed a tier, and then Slack's 429s are honoured (a throttled append
// waits for the next one or the stop; a refused start falls back to chat.update).
type streamLimits struct {
	streams *rate.Limiter
	appends *rate.Limiter
}

func newStreamLimits() streamLimits {
	return streamLimits{streams: rate.NewLimiter(streamTier, 10), appends: rate.NewLimiter(appendTier, 20)}
}

// stream is one answer in an assistant thread, streamed natively: chat.startStream with the
// first words (at once), chat.appendStream at most once per UpdateInterval with what came
// since, chat.stopStream with the sources and feedback buttons. Where streaming is unavailable
// (an older workspace, GovSlack, the tier spent) it falls back to a placeholder updated with
// chat.update (see reply).
type stream struct {
	a *Adapter
	q question

	mu       sync.Mutex
	text     strings.Builder // everything received
	sent     int             // bytes of text already on Slack
	ts       string          // the streamed message, once started
	fallback *reply          // non-nil once streaming was given up
	holdOff  time.Time       // no append before this (a 429's Retry-After)

	writer *throttledWriter
}

// newStream starts the writer that sends q's answer as it arrives.
func (a *Adapter) newStream(ctx context.Context, q question) *stream {
	s := &stream{a: a, q: q, writer: newThrottledWriter()}
	s.writer.start(ctx, a.opts.UpdateInterval, s.send)
	return s
}

// delta receives streamed answer text; the first words are sent at once.
func (s *stream) delta(d string) {
	s.mu.Lock()
	s.text.WriteString(d)
	fb, first := s.fallback, s.ts == ""
	s.mu.Unlock()
	if fb != nil {
		fb.delta(d)
		return
	}
	if first {
		s.writer.writeNow()
	}
}

// queued shows the question's place in line in the thread's status.
func (s *stream) queued(position int) {
	ctx, cancel := context.WithTimeout(s.a.work, 5*time.Second)
	defer cancel()
	s.a.setStatus(ctx, s.q, fmt.Sprintf("Waiting in line (%d)…", position))
}

// send puts the text not yet on Slack there: starting the stream, or appending to it.
func (s *stream) send(ctx context.Context) {
	s.mu.Lock()
	if s.fallback != nil || s.text.Len() == s.sent || time.Now().Before(s.holdOff) {
		s.mu.Unlock()
		return
	}
	text, ts, sent := s.text.String(), s.ts, s.sent
	s.mu.Unlock()
	chunk := escape(text[sent:]) // deltas end on rune boundaries, and escaping never splits
	if ts == "" {
		s.start(ctx, text, chunk)
		return
	}
	if !s.a.streamLimits.appends.Allow() {
		return // the tier is spent: this text goes with the next append or the stop
	}
	_, _, err := s.a.api.AppendStreamContext(ctx, s.q.channel, ts, slack.MsgOptionMarkdownText(chunk))
	s.mu.Lock()
	defer s.mu.Unlock()
	if wait, ok := rateLimited(err); ok {
		s.holdOff = time.Now().Add(max(wait, time.Second))
		return
	}
	if err != nil {
		s.a.logger.WarnContext(ctx, "append to slack stream", slog.String("channel_id", s.q.channel), slog.Any("error", err))
		return
	}
	s.sent = len(text)
}

// start opens the stream with the first words, or falls back to chat.update when Slack (or the
// tier) does not allow it.
func (s *stream) start(ctx context.Context, text, chunk string) {
	a := s.a
	var err error
	var ts string
	if a.streamLimits.streams.Allow() {
		_, ts, err = a.api.StartStreamContext(ctx, s.q.channel, slack.MsgOptionTS(s.q.threadTS),
			slack.MsgOptionRecipientTeamID(s.q.team), slack.MsgOptionRecipientUserID(s.q.user), slack.MsgOptionMarkdownText(chunk))
	} else {
		err = errStreamTierSpent
	}
	if err == nil {
		s.mu.Lock()
		s.ts, s.sent = ts, len(text)
		s.mu.Unlock()
		a.trace("first_words", s.q.received)
		return
	}
	a.logger.InfoContext(ctx, "slack native streaming unavailable; updating a message instead", slog.String("channel_id", s.q.channel), slog.Any("error", err))
	r := a.prepareReply(s.q)
	r.style, r.initial = a.style(true), text
	r.text.WriteString(text) // already shown by post: later deltas are appended to it
	r.post(ctx, s.q.ts)
	a.trace("first_words", s.q.received)
	s.mu.Lock()
	s.fallback = r
	s.mu.Unlock()
}

// errStreamTierSpent stands for a start the adapter did not try: this replica already started
// as many streams as chat.startStream's tier allows for now.
var errStreamTierSpent = streamError("chat.startStream tier spent")

type streamError string

func (e streamError) Error() string { return string(e) }

// finish writes the final reply: chat.stopStream with the rest of the text, the sources and the
// feedback buttons; when the final text differs from what streamed (citations removed, the
// model timed out), the message is then rewritten with chat.update. With nothing streamed
// (a reason, or an answer faster than the first tick) it is posted as one message. When Slack
// refuses both the stop and the update, it tries once more, then posts ReasonInternalError in
// the thread, so the asker is never left with a stale or empty stream (as reply.finish does
// for a placeholder). It may be called again after a panic.
func (s *stream) finish(ctx context.Context, out bot.Outgoing) {
	s.writer.close()
	s.mu.Lock()
	fb, ts, text, sent := s.fallback, s.ts, s.text.String(), s.sent
	s.mu.Unlock()
	if fb != nil {
		fb.finish(ctx, out)
		return
	}
	a := s.a
	if ts == "" {
		r := a.prepareReply(s.q)
		r.style = a.style(true)
		r.finish(ctx, out)
		return
	}
	if out.AnswerID != 0 {
		// Recorded before the writes, so that a withdrawal edits this message.
		if err := a.opts.Store.SetReplyRef(ctx, out.AnswerID, ts); err != nil {
			a.logger.ErrorContext(ctx, "record slack answer message", slog.Int64("answer_id", out.AnswerID), slog.Any("error", err))
		}
	}
	f := finalStreamWrite{s: s, ts: ts, text: text, sent: sent, out: out}
	err := f.write(ctx)
	if bot.Refused(err) {
		a.logger.WarnContext(ctx, "write slack answer over its stream; trying once more", slog.String("channel_id", s.q.channel), slog.Any("error", err))
		err = f.write(ctx)
	}
	if bot.Refused(err) {
		a.logger.ErrorContext(ctx, "write slack answer over its stream; posting a short error instead", slog.String("channel_id", s.q.channel), slog.Any("error", err))
		reason := bot.Outgoing{Text: bot.ReasonText(out.Lang, bot.ReasonInternalError), Lang: out.Lang, Reason: bot.ReasonInternalError}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second) // even when the work ran out of time
		defer cancel()
		if err := a.prepareReply(s.q).write(ctx, 0, reason); err != nil {
			a.logger.ErrorContext(ctx, "post slack error reply", slog.String("channel_id", s.q.channel), slog.Any("error", err))
		}
	}
	a.trace("final", s.q.received)
}

// finalStreamWrite is one attempt at a stream's final write (see stream.finish); stopped
// carries over to the next attempt, so that a stream Slack already stopped is only updated.
type finalStreamWrite struct {
	s       *stream
	ts      string
	text    string // what streamed
	sent    int
	out     bot.Outgoing
	stopped bool
}

// write stops the stream and, when the final text differs from what streamed or the stop was
// refused, writes the whole reply over it. It returns the error of the last write tried.
func (f *finalStreamWrite) write(ctx context.Context) error {
	a, q, out := f.s.a, f.s.q, f.out
	rendered := renderReplyWith(out, a.style(true))
	same := strings.TrimSpace(f.text) == strings.TrimSpace(out.Text)
	var err error
	if !f.stopped {
		opts := []slack.MsgOption{}
		if same && f.sent < len(f.text) {
			opts = append(opts, slack.MsgOptionMarkdownText(escape(f.text[f.sent:])))
		}
		if same && len(rendered.under) > 0 { // what goes under the streamed text: underAnswer
			opts = append(opts, slack.MsgOptionBlocks(rendered.under...))
		}
		err = a.writeAnswer(ctx, out.AnswerID, func() error {
			_, _, err := a.api.StopStreamContext(ctx, q.channel, f.ts, opts...)
			return err
		})
		if errors.Is(err, bot.ErrWriteWithdrawn) {
			return err
		}
		if err != nil {
			a.logger.WarnContext(ctx, "stop slack stream", slog.String("channel_id", q.channel), slog.Any("error", err))
		}
		f.stopped = err == nil
	}
	if same && f.stopped {
		return nil
	}
	id := out.AnswerID
	if errors.Is(err, bot.ErrWriteUnchecked) {
		rendered = renderReplyWith(notRecorded(out), replyStyle{})
		id = 0 // a short error, no answer text
	}
	err = a.writeAnswer(ctx, id, func() error {
		_, _, _, err := a.api.UpdateMessageContext(ctx, q.channel, f.ts, slack.MsgOptionText(rendered.fallback, false), slack.MsgOptionBlocks(rendered.blocks()...))
		return err
	})
	if err != nil && !errors.Is(err, bot.ErrWriteWithdrawn) {
		a.logger.WarnContext(ctx, "write slack answer over its stream", slog.String("channel_id", q.channel), slog.Any("error", err))
	}
	return err
}
