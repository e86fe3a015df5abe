package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/rag"
)

// stream runs a streamed completion: the request is retried until the server starts answering,
// then chunks are read until [DONE], each reset of the idle timer allowing Timeout more.
func (c *Chat) stream(ctx context.Context, creq goopenai.ChatCompletionRequest,
	onDelta func(string)) (*rag.ChatResponse, error) {
	creq.Stream = true
	creq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	stream, idle, res := c.openStream(ctx, creq)
	if res != nil && rejectsStreamOptions(res) {
		c.logger.InfoContext(ctx, "chat endpoint rejects stream_options; streaming without usage",
			slog.String("model", c.model))
		creq.StreamOptions = nil
		stream, idle, res = c.openStream(ctx, creq)
	}
	if res != nil {
		return nil, c.endpoint.describe(res, c.timeout)
	}
	defer stream.Close()
	defer idle.stop()

	var (
		text  strings.Builder
		out   = &rag.ChatResponse{Model: c.model}
		usage *goopenai.Usage
	)
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if idle.fired() {
				return nil, fmt.Errorf("chat stream from %s stalled: no data for %s (Timeout) after %d characters: %w",
					c.endpoint.baseURL, c.timeout, text.Len(), err)
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("chat stream stopped: %w", errors.Join(context.Cause(ctx), err))
			}
			return nil, fmt.Errorf("read chat stream after %d characters: %w", text.Len(), err)
		}
		idle.touch()
		if chunk.Model != "" {
			out.Model = chunk.Model
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, choice := range chunk.Choices {
			if choice.Index == 0 && choice.Delta.Content != "" {
				text.WriteString(choice.Delta.Content)
				onDelta(choice.Delta.Content)
			}
		}
	}
	out.Text = text.String()
	if usage != nil {
		out.PromptTokens, out.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
	}
	return out, nil
}

// openStream sends the streaming request with retries and returns the open stream and its idle
// timer, or the retry loop's last failure.
func (c *Chat) openStream(ctx context.Context, creq goopenai.ChatCompletionRequest) (
	*goopenai.ChatCompletionStream, *idleTimer, *attemptResult) {
	var (
		stream *goopenai.ChatCompletionStream
		idle   *idleTimer
	)
	res := c.retry.do(ctx, "chat_stream", 0, func(actx context.Context) error {
		sctx, timer := withIdleTimeout(actx, c.timeout)
		s, err := c.client.CreateChatCompletionStream(sctx, creq)
		if err != nil {
			fired := timer.fired()
			timer.stop()
			if fired {
				return fmt.Errorf("%w: %w", errAttemptTimeout, err)
			}
			return err
		}
		stream, idle = s, timer
		return nil
	})
	return stream, idle, res
}

// idleTimer cancels a context when touch has not been called for d.
type idleTimer struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	d      time.Duration
}

func withIdleTimeout(parent context.Context, d time.Duration) (context.Context, *idleTimer) {
	ctx, cancel := context.WithCancelCause(parent)
	t := &idleTimer{ctx: ctx, cancel: cancel, d: d}
	t.timer = time.AfterFunc(d, func() { cancel(errAttemptTimeout) })
	return ctx, t
}

// touch restarts the idle period.
func (t *idleTimer) touch() { t.timer.Reset(t.d) }

// fired reports whether the idle period ran out.
func (t *idleTimer) fired() bool { return errors.Is(context.Cause(t.ctx), errAttemptTimeout) }

// stop releases the timer and the context.
func (t *idleTimer) stop() {
	t.timer.Stop()
	t.cancel(context.Canceled)
}
