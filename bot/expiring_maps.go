package bot

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// The expiring maps the adapters keep per process: TTLCache (plain) and VersionedCache (valid
// only while the audience versions it was computed under are current). Neither is the answer
// cache: that one is rag/cache.go (the pipeline's side) and rag/pgstore/cache.go (PostgreSQL).

// TTLCache is a small concurrency-safe map whose entries expire. It is per process: anything
// about who reads what belongs in a VersionedCache, which every replica invalidates together.
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

// VersionedCache holds one value per key together with the audience versions it was computed
// under (AudienceState.Version of the subjects it depends on). Get returns it only while those
// versions are still the current ones and its ttl has not passed: a change recorded by any
// replica, or a lost event after at most ttl, makes every replica compute it again. Setting a key
// replaces the older version's value.
type VersionedCache[V any] struct {
	ttl time.Duration
	now func() time.Time
	max int // 0: no bound but the ttl

	mu      sync.Mutex
	entries map[string]versionedEntry[V]
}

type versionedEntry[V any] struct {
	value    V
	versions []int64
	expires  time.Time
}

// NewVersionedCache returns a cache whose entries live at most ttl. now may be nil (time.Now).
func NewVersionedCache[V any](ttl time.Duration, now func() time.Time) *VersionedCache[V] {
	if now == nil {
		now = time.Now
	}
	return &VersionedCache[V]{ttl: ttl, now: now, entries: map[string]versionedEntry[V]{}}
}

// NewBoundedVersionedCache is NewVersionedCache holding at most max entries (max > 0): when it
// is full, expired entries go first, then the oldest quarter.
func NewBoundedVersionedCache[V any](max int, ttl time.Duration, now func() time.Time) *VersionedCache[V] {
	c := NewVersionedCache[V](ttl, now)
	c.max = max
	return c
}

// Get returns the value under key when it was computed under exactly versions and is live.
func (c *VersionedCache[V]) Get(key string, versions ...int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !slices.Equal(e.versions, versions) || !c.now().Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Set stores value under key as computed under versions, dropping expired entries now and then.
func (c *VersionedCache[V]) Set(key string, value V, versions ...int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	_, replacing := c.entries[key]
	switch {
	case c.max > 0 && !replacing && len(c.entries) >= c.max:
		c.evict(now)
	case len(c.entries) >= 1024 && len(c.entries)%256 == 0:
		c.dropExpired(now)
	}
	c.entries[key] = versionedEntry[V]{value: value, versions: slices.Clone(versions), expires: now.Add(c.ttl)}
}

// Len returns the number of entries, expired ones not dropped yet included.
func (c *VersionedCache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *VersionedCache[V]) dropExpired(now time.Time) {
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
}

// evict makes room in a full bounded cache: the expired entries, and then the oldest until
// three quarters of max remain (so that evicting is rare).
func (c *VersionedCache[V]) evict(now time.Time) {
	c.dropExpired(now)
	keep := c.max * 3 / 4
	if len(c.entries) <= keep {
		return
	}
	type aged struct {
		key     string
		expires time.Time
	}
	all := make([]aged, 0, len(c.entries))
	for k, e := range c.entries {
		all = append(all, aged{k, e.expires})
	}
	slices.SortFunc(all, func(x, y aged) int { return cmp.Compare(x.expires.UnixNano(), y.expires.UnixNano()) })
	for _, e := range all[:len(all)-keep] {
		delete(c.entries, e.key)
	}
}

// Clear forgets every entry.
func (c *VersionedCache[V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}
