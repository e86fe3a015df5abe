package discord

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// The adapter's bounded, expiring in-memory maps (boundedCache): who reads a channel, member
// lookups, the threads it opened. Not the answer cache (rag/cache.go, rag/pgstore/cache.go).

// Bounds of the adapter's in-memory caches. They are per process and short-lived; what decides
// who sees what is reused only under the audience versions every replica checks (lookups.go).
const (
	// maxAudienceEntries bounds the remembered channels, guilds and member lookups.
	maxAudienceEntries = 4096
	// maxThreads bounds the threads this process remembers opening; older ones are still
	// recognised on the gateway by their owner (the bot).
	maxThreads = 4096
	// threadMemory is how long an opened thread is remembered: beyond the day an idle thread
	// stays open.
	threadMemory = 48 * time.Hour
)

// boundedCache is a least-recently-used map of at most size entries, each forgotten ttl after
// it was added. It is safe for concurrent use.
type boundedCache[V any] struct {
	ttl     time.Duration
	now     func() time.Time
	entries *lru.Cache[string, timed[V]]
}

type timed[V any] struct {
	value V
	until time.Time
}

// newBoundedCache returns an empty cache; size must be positive.
func newBoundedCache[V any](size int, ttl time.Duration, now func() time.Time) *boundedCache[V] {
	entries, err := lru.New[string, timed[V]](size)
	if err != nil {
		panic("discord cache: " + err.Error()) // only for a size <= 0, a programming error
	}
	return &boundedCache[V]{ttl: ttl, now: now, entries: entries}
}

// Get returns the live value under key; an expired one is dropped.
func (c *boundedCache[V]) Get(key string) (V, bool) {
	e, ok := c.entries.Get(key)
	if ok && c.now().Before(e.until) {
		return e.value, true
	}
	if ok {
		c.entries.Remove(key)
	}
	var zero V
	return zero, false
}

// Add stores value under key for the cache's ttl, evicting the least recently used entry when
// the cache is full.
func (c *boundedCache[V]) Add(key string, value V) {
	c.entries.Add(key, timed[V]{value: value, until: c.now().Add(c.ttl)})
}

// Len returns the number of entries, expired ones not yet dropped included.
func (c *boundedCache[V]) Len() int { return c.entries.Len() }
