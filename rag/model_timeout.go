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
	return FallbackNoticeText(lang, fallbackTimeout, timeout, 0)
}

// composeBounded composes with the pipeline's composer. With a FallbackComposer set, an answer
// the model cannot give is composed again, offline, from the same sources, labelled with what
// happened, and ans.ModelFallback says why: the model fell silent for ModelTimeout (when set;
// from the start or from its last streamed word), or its call failed (an HTTP 500 after the
// client's retries, a refused connection). skipModel composes offline at once (the model already
// timed out on this question). Without a FallbackComposer the model's error is returned.
func (p *Pipeline) composeBounded(ctx context.Context, req ComposeRequest, ans *Answer, skipModel bool, onDelta func(string)) (*Composition, error) {
	timeout, fallback := p.opts.ModelTimeout, p.opts.FallbackComposer
	if fallback == nil {
		return p.composer.Compose(ctx, req, onDelta)
	}
	why, status := fallbackTimeout, 0
	if !skipModel {
		mctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		reset := func() {}
		if timeout > 0 {
			timer := time.AfterFunc(timeout, func() { cancel(errModelTimeout) })
			defer timer.Stop()
			reset = func() { timer.Reset(timeout) }
		}
		comp, err := p.composer.Compose(mctx, req, func(d string) {
			reset()
			if onDelta != nil {
				onDelta(d)
			}
		})
		switch {
		case err == nil:
			return comp, nil
		case ctx.Err() != nil:
			return nil, err // the caller gave up: nobody waits for an answer
		case errors.Is(context.Cause(mctx), errModelTimeout):
			why, status = fallbackTimeout, modelStatus(err)
		default:
			why, status = fallbackError, modelStatus(err)
		}
		p.logger.WarnContext(ctx, "chat model gave no answer; answering from the same sources offline",
			slog.String("why", why), slog.Int("status", status), slog.Duration("timeout", timeout), slog.String("error", err.Error()))
	}
	return p.composeOffline(ctx, req, ans, why, status, onDelta)
}

// composeOffline composes req with the FallbackComposer, labelled with why the model's answer is
// not shown (FallbackNoticeText), and records why in ans.
func (p *Pipeline) composeOffline(ctx context.Context, req ComposeRequest, ans *Answer, why string, status int, onDelta func(string)) (*Composition, error) {
	ans.ModelTimedOut = true
	ans.ModelFallback = why
	comp, err := p.opts.FallbackComposer.Compose(ctx, req, nil)
	if err != nil {
		return nil, fmt.Errorf("compose offline without the model (%s): %w", why, err)
	}
	if comp.Text != "" {
		comp.Text = FallbackNoticeText(req.Lang, why, p.opts.ModelTimeout, status) + "\n\n" + comp.Text
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
