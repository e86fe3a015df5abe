package slack

import "context"

// Idle waits until the adapter handles nothing (no event, command or click in flight), or ctx
// ends: what a test waits for instead of sleeping after it posts an event.
func (a *Adapter) Idle(ctx context.Context) error {
	done := make(chan struct{})
	go func() { a.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var NamesAddress = namesAddress
