package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// reply is one answer's message in a thread: a placeholder posted at once, updated at most once
// per UpdateInterval while the answer streams, then replaced by the final answer. When Slack
// throttles the updates (429) it stops updating and writes the final answer once, after the
// Retry-After.
type reply struct {
	a        *Adapter
	channel  string
	threadTS string
	received time.Time
	ts       string // the placeholder's timestamp; "" when it could not be posted
	style    replyStyle
	initial  string // posted instead of the placeholder text when set (words already written)

	// answer is the recorded answer's id once known: every write of its text is checked
	// against its withdrawal (Adapter.writeAnswer); withdrawn stops the streamed updates.
	answer    atomic.Int64
	withdrawn atomic.Bool

	mu        sync.Mutex
	text      strings.Builder
	dirty     bool
	throttled bool
	writer    *throttledWriter
}

// prepareReply returns q's reply before anything is posted (see post).
func (a *Adapter) prepareReply(q question) *reply {
	return &reply{a: a, channel: q.channel, threadTS: q.threadTS, received: q.received, writer: newThrottledWriter(), style: a.style(false)}
}

// post shows the placeholder in the thread (or, when Slack refuses it, a 👀 reaction on the
// question, ts) and starts the updater.
func (r *reply) post(ctx context.Context, questionTS string) {
	a := r.a
	first := a.opts.Placeholder
	if r.initial != "" {
		first = escape(truncate(r.initial, maxSectionChars-2)) + " …"
	}
	_, ts, err := a.api.PostMessageContext(ctx, r.channel, r.inThread(slack.MsgOptionText(first, false))...)
	if err != nil {
		a.logger.WarnContext(ctx, "post slack placeholder", slog.String("channel_id", r.channel), slog.Any("error", err))
		// A reaction is the cheaper visible acknowledgement when posting is throttled.
		if rerr := a.api.AddReactionContext(ctx, "eyes", slack.ItemRef{Channel: r.channel, Timestamp: questionTS}); rerr == nil {
			a.trace("placeholder", r.received)
		}
		return
	}
	r.ts = ts
	a.trace("placeholder", r.received)
	r.writer.start(ctx, a.opts.UpdateInterval, r.update)
}

// inThread adds the thread option to opts when the reply goes in a thread.
func (r *reply) inThread(opts ...slack.MsgOption) []slack.MsgOption {
	if r.threadTS == "" {
		return opts
	}
	return append(opts, slack.MsgOptionTS(r.threadTS))
}

// delta receives streamed answer text.
func (r *reply) delta(d string) {
	r.mu.Lock()
	r.text.WriteString(d)
	r.dirty = true
	r.mu.Unlock()
}

// queued shows the question's place in line in the placeholder while every answer worker is
// busy (bot.Incoming.Queued). A failed update only costs the hint.
func (r *reply) queued(position int) {
	if r.ts == "" {
		return
	}
	ctx, cancel := context.WithTimeout(r.a.work, 5*time.Second)
	defer cancel()
	text := fmt.Sprintf("%s you are %d in line", r.a.opts.Placeholder, position)
	if _, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, r.ts, slack.MsgOptionText(text, false)); err != nil {
		r.a.logger.InfoContext(ctx, "show place in line", slog.String("channel_id", r.channel), slog.Any("error", err))
	}
}

// update writes the text streamed since the last update into the placeholder (the writer
// calls it at most once per interval).
func (r *reply) update(ctx context.Context) {
	r.mu.Lock()
	if !r.dirty || r.throttled || r.withdrawn.Load() {
		r.mu.Unlock()
		return
	}
	text := r.text.String()
	r.dirty = false
	r.mu.Unlock()
	red, withdrawn, err := r.a.writes.Write(ctx, r.answer.Load(), func() error {
		_, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, r.ts, slack.MsgOptionText(escape(truncate(text, maxSectionChars-2))+" …", false))
		return err
	})
	if withdrawn {
		r.withdrawn.Store(true)
		r.a.showRedaction(ctx, red)
		return
	}
	if wait, ok := rateLimited(err); ok {
		r.mu.Lock()
		r.throttled = true
		r.mu.Unlock()
		r.a.logger.InfoContext(ctx, "slack updates throttled; the final answer will be written once", slog.String("channel_id", r.channel), slog.Duration("retry_after", wait))
	} else if err != nil {
		r.a.logger.WarnContext(ctx, "update slack answer", slog.String("channel_id", r.channel), slog.Any("error", err))
	}
}

// finish writes the final reply: into the placeholder when there is one (waiting out 429s),
// else, or when that fails, as one new message in the thread, whose ts is then recorded with
// the answer so it can be withdrawn in place. Every attempt is checked against the answer's
// withdrawal (writeAnswer): a withdrawn answer shows its notice, and an answer whose
// withdrawal cannot be checked shows ReasonNotRecorded instead. When Slack refuses both the
// update and the repost, it tries once more, then shows ReasonInternalError, so the asker is
// never left with the placeholder alone. It may be called again after a panic.
func (r *reply) finish(ctx context.Context, out bot.Outgoing) {
	r.writer.close()
	if out.AnswerID != 0 {
		r.answer.Store(out.AnswerID)
	}
	err := r.write(ctx, r.answer.Load(), out)
	if bot.Refused(err) {
		r.a.logger.WarnContext(ctx, "post slack answer; trying once more", slog.String("channel_id", r.channel), slog.Any("error", err))
		err = r.write(ctx, r.answer.Load(), out)
	}
	if errors.Is(err, bot.ErrWriteUnchecked) {
		r.a.logger.ErrorContext(ctx, "check slack answer before showing it; showing a short error instead", slog.String("channel_id", r.channel), slog.Any("error", err))
		err = r.write(ctx, 0, notRecorded(out))
	}
	if err == nil || errors.Is(err, bot.ErrWriteWithdrawn) {
		r.a.trace("final", r.received)
		return
	}
	r.a.logger.ErrorContext(ctx, "post slack answer; showing a short error instead", slog.String("channel_id", r.channel), slog.Any("error", err))
	reason := bot.Outgoing{Text: bot.ReasonText(out.Lang, bot.ReasonInternalError), Lang: out.Lang, Reason: bot.ReasonInternalError}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second) // even when the work ran out of time
	defer cancel()
	if err := r.write(ctx, 0, reason); err != nil {
		r.a.logger.ErrorContext(ctx, "post slack error reply", slog.String("channel_id", r.channel), slog.Any("error", err))
	}
}

// write writes out as answer id's final reply (see finish).
func (r *reply) write(ctx context.Context, id int64, out bot.Outgoing) error {
	rendered := renderReplyWith(out, r.style)
	opts := []slack.MsgOption{slack.MsgOptionText(rendered.fallback, false), slack.MsgOptionBlocks(rendered.blocks()...)}
	if r.ts != "" {
		err := r.a.writeAnswer(ctx, id, func() error {
			_, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, r.ts, opts...)
			return err
		})
		if !bot.Refused(err) {
			return err
		}
		r.a.logger.WarnContext(ctx, "write slack answer into placeholder; posting it instead", slog.String("channel_id", r.channel), slog.Any("error", err))
	}
	moved := false
	err := r.a.writeAnswer(ctx, id, func() error {
		_, ts, err := r.a.api.PostMessageContext(ctx, r.channel, r.inThread(opts...)...)
		if err != nil || id == 0 {
			return err
		}
		// Recorded before the write is counted, so that a withdrawal edits this message.
		if err := r.a.opts.Store.SetReplyRef(ctx, id, ts); err != nil {
			r.a.logger.ErrorContext(ctx, "record slack answer message", slog.Int64("answer_id", id), slog.Any("error", err))
			return nil
		}
		moved = true
		return nil
	})
	if moved && r.ts != "" {
		r.abandonPlaceholder(ctx)
	}
	return err
}

// abandonPlaceholder deletes the placeholder once the answer was posted as a new message and
// its record points there: the placeholder may show streamed answer text, and a withdrawal
// edits only the recorded message, so it would keep that text in front of whoever joins later.
func (r *reply) abandonPlaceholder(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	err := withRetry(ctx, func() error {
		_, _, err := r.a.api.DeleteMessageContext(ctx, r.channel, r.ts)
		return err
	})
	if err == nil || messageGone(err) {
		return
	}
	// Not deletable: at least take the streamed text out of it.
	err = withRetry(ctx, func() error {
		_, _, _, err := r.a.api.UpdateMessageContext(ctx, r.channel, r.ts, slack.MsgOptionText("…", false))
		return err
	})
	if err != nil {
		r.a.logger.ErrorContext(ctx, "clear the slack placeholder left by a reposted answer", slog.String("channel_id", r.channel), slog.Any("error", err))
	}
}
