package slack

import (
	"context"
	"sync"
	"time"
)

// throttledWriter runs an answer's streamed writes in a goroutine of their own, at most once
// per interval and at once when asked (writeNow), until close: the loop behind both the native
// stream's appends and the placeholder's updates. What a write sends, and what it does with
// Slack's answer (a 429, a withdrawal), is the write's own.
type throttledWriter struct {
	kick, stop chan struct{}
	closeOnce  sync.Once
	done       sync.WaitGroup
}

func newThrottledWriter() *throttledWriter {
	return &throttledWriter{kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// start calls write every interval, and whenever writeNow asks, until close or ctx ends.
func (w *throttledWriter) start(ctx context.Context, interval time.Duration, write func(context.Context)) {
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			case <-w.kick:
			}
			write(ctx)
		}
	}()
}

// writeNow asks for a write before the next tick; a request not yet served stands.
func (w *throttledWriter) writeNow() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// close stops the writes and waits for the one in progress, so that the final write comes after
// every streamed one. It may be called more than once, and when start never was.
func (w *throttledWriter) close() {
	w.closeOnce.Do(func() { close(w.stop) })
	w.done.Wait()
}
