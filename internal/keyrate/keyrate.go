// Package keyrate keeps one token bucket per key (a user, a workspace, an MCP caller), so that
// each key has its own rate, and forgets the buckets idle for an hour.
package keyrate

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// idle is how long a bucket is kept without use; a forgotten bucket starts full again.
const idle = time.Hour

// Limiter allows each key perMinute events on average and burst at once. A nil *Limiter allows
// everything. It is safe for concurrent use.
type Limiter struct {
	perSecond rate.Limit
	burst     int

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a limiter of perMinute events per key on average, burst at once (at least 1).
func New(perMinute float64, burst int) *Limiter {
	return &Limiter{perSecond: rate.Limit(perMinute / 60), burst: max(1, burst), buckets: map[string]*bucket{}}
}

// Allow reports whether key may go at now, taking a token when so.
func (l *Limiter) Allow(key string, now time.Time) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > idle {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > idle {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.perSecond, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
