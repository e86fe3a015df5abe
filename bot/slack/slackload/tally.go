package slackload

import (
	"maps"
	"sync"
	"time"

	"github.com/citahq/cita/bot"
)

// Tally is a bot.Observer that counts turns by outcome (answered, abstained, busy, ...).
type Tally struct {
	mu       sync.Mutex
	outcomes map[string]int
	cached   int
}

// ObserveTurn implements bot.Observer.
func (t *Tally) ObserveTurn(_ string, out bot.Outgoing, _ time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.outcomes == nil {
		t.outcomes = map[string]int{}
	}
	t.outcomes[out.Outcome()]++
	if out.Answer != nil && out.Answer.Cached {
		t.cached++
	}
}

// CacheHits returns how many replies came from the answer cache.
func (t *Tally) CacheHits() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cached
}

// Outcomes returns a copy of the counts by outcome.
func (t *Tally) Outcomes() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	maps.Copy(out, t.outcomes)
	return out
}
