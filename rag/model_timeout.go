package rag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// errModelTimeout is the cause of a model call's context when ModelTimeout passes without a
// word from the model.
var errModelTimeout = errors.New("chat model timed out")

// TimeoutNoticeText is the label of an answer written by the offline composer because the chat
// model did not answer within timeout, in lang.
func TimeoutNoticeText(lang string, timeout time.Duration) string {
	return fmt.Sprintf(phrasesFor(lang).ModelTimedOut, timeout)
}

// composeBounded composes with the pipeline's composer. With ModelTimeout and a
// FallbackComposer set, the model must say something within ModelTimeout of the start and of
// each word it streams; when it falls silent for longer, the answer is composed again, offline,
// from the same sources, labelled as such, and ans.ModelTimedOut is set. skipModel composes
// offline at once (the model already timed out on this question).
func (p *Pipeline) composeBounded(ctx context.Context, req ComposeRequest, ans *Answer, skipModel bool, onDelta func(string)) (*Composition, error) {
	timeout, fallback := p.opts.ModelTimeout, p.opts.FallbackComposer
	if timeout <= 0 || fallback == nil {
		return p.composer.Compose(ctx, req, onDelta)
	}
	if !skipModel {
		mctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		timer := time.AfterFunc(timeout, func() { cancel(errModelTimeout) })
		comp, err := p.composer.Compose(mctx, req, func(d string) {
			timer.Reset(timeout)
			if onDelta != nil {
				onDelta(d)
			}
		})
		timer.Stop()
		if err == nil || ctx.Err() != nil || !errors.Is(context.Cause(mctx), errModelTimeout) {
			return comp, err
		}
		p.logger.WarnContext(ctx, "chat model timed out; answering from the same sources offline",
			slog.Duration("timeout", timeout), slog.String("error", err.Error()))
	}
	ans.ModelTimedOut = true
	comp, err := fallback.Compose(ctx, req, nil)
	if err != nil {
		return nil, fmt.Errorf("compose offline after the model timed out: %w", err)
	}
	if comp.Text != "" {
		comp.Text = TimeoutNoticeText(req.Lang, timeout) + "\n\n" + comp.Text
		if onDelta != nil {
			onDelta("\n\n" + comp.Text)
		}
	}
	return comp, nil
}

// boundedModelContext bounds a model call that has no offline twin of its own (the follow-up
// rewrite, the agent) by ModelTimeout times steps. The returned check reports whether the model
// timed out, after the call.
func (p *Pipeline) boundedModelContext(ctx context.Context, steps int) (context.Context, context.CancelFunc, func() bool) {
	if p.opts.ModelTimeout <= 0 || p.opts.FallbackComposer == nil {
		return ctx, func() {}, func() bool { return false }
	}
	mctx, cancel := context.WithTimeoutCause(ctx, time.Duration(steps)*p.opts.ModelTimeout, errModelTimeout)
	return mctx, cancel, func() bool { return ctx.Err() == nil && errors.Is(context.Cause(mctx), errModelTimeout) }
}
