package scheduler

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/citahq/cita/sync/syncrun"
)

// busyRetry is how long a triggered pass waits before trying again when another replica holds
// the source: that replica's pass may have listed before the change.
const busyRetry = time.Second

// lane serialises one source's passes in this process and coalesces triggers: a trigger
// during a pass runs one more pass after it, for every change seen meanwhile.
type lane struct {
	src     syncrun.Source
	running sync.Mutex    // held by the pass in progress, scheduled or triggered
	kick    chan struct{} // capacity 1: a triggered pass is wanted
	mu      sync.Mutex
	since   time.Time // the earliest change waiting for a triggered pass
}

func newLane(src syncrun.Source) *lane {
	return &lane{src: src, kick: make(chan struct{}, 1)}
}

// Trigger asks for a pass of source as soon as possible, for a change seen at the source at
// changedAt (a watcher's event, a push notification). Triggers coalesce: one pass covers every
// change seen before it starts. It returns an error when the source was never added.
func (s *Scheduler) Trigger(source string, changedAt time.Time) error {
	s.mu.Lock()
	l, ok := s.lanes[source]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("trigger: no source %q", source)
	}
	l.mu.Lock()
	if l.since.IsZero() || changedAt.Before(l.since) {
		l.since = changedAt
	}
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default: // a pass is already wanted: it will take this change too
	}
	return nil
}

// startLane runs the lane's triggered passes until the scheduler stops. s.mu is held.
func (s *Scheduler) startLane(l *lane) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-l.kick:
			}
			l.mu.Lock()
			since := l.since
			l.since = time.Time{}
			l.mu.Unlock()
			err := s.runOnce(l, syncrun.RunOptions{ChangedAt: since})
			if errors.Is(err, syncrun.ErrBusy) && s.ctx.Err() == nil {
				select {
				case <-s.ctx.Done():
					return
				case <-time.After(busyRetry):
				}
				if err := s.Trigger(l.src.Name, since); err != nil {
					return
				}
			}
		}
	}()
}
