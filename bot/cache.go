package bot

import (
	"sync"
	"time"
)

// TTLCache is a small concurrency-safe map whose entries expire. Adapters cache user identities
// and channel scopes in it; member join/leave events call Delete so a channel's scope is
// recomputed at its next question.
type TTLCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// NewTTLCache returns a cache whose entries live for ttl. now may be nil (time.Now).
func NewTTLCache[V any](ttl time.Duration, now func() time.Time) *TTLCache[V] {
	if now == nil {
		now = time.Now
	}
	return &TTLCache[V]{ttl: ttl, now: now, entries: map[string]ttlEntry[V]{}}
}

// Get returns the live value under key.
func (c *TTLCache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !c.now().Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Set stores value under key for the cache's ttl, dropping expired entries now and then.
func (c *TTLCache[V]) Set(key string, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.entries) >= 1024 && len(c.entries)%256 == 0 {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	c.entries[key] = ttlEntry[V]{value: value, expires: now.Add(c.ttl)}
}

// Delete forgets key.
func (c *TTLCache[V]) Delete(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}

// Clear forgets every entry.
func (c *TTLCache[V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}
