package leakcheck

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// dice makes every random decision the fakes take while answers are in flight (a lookup that
// fails, a chat write that is throttled, slow or refused, a database call that errors, an
// event that is lost) from the run's seed. A decision is drawn from the seed, what is decided
// ("lookup/conversations.members/C00003") and how many times that was decided before: the
// goroutines' interleaving changes which request comes first, but not what the n-th decision of
// a kind in a conversation is, so a seed replays a run's faults.
type dice struct {
	seed uint64

	mu sync.Mutex
	n  map[string]uint64
}

func newDice(seed uint64) *dice { return &dice{seed: seed, n: map[string]uint64{}} }

// draw returns the next random number of key.
func (d *dice) draw(key string) *rand.Rand {
	d.mu.Lock()
	n := d.n[key]
	d.n[key] = n + 1
	d.mu.Unlock()
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(d.seed, h.Sum64()^(n*0x9e3779b97f4a7c15)))
}

// oneIn reports whether the next decision of key comes true, once in n on average; never when
// n <= 0.
func (d *dice) oneIn(key string, n int) bool {
	if n <= 0 {
		return false
	}
	return d.draw(key).IntN(n) == 0
}

// intN returns the next choice of key in [0, n); n must be > 0.
func (d *dice) intN(key string, n int) int { return d.draw(key).IntN(n) }
