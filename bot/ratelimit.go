package bot

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is the per-user question rate: PerMinute questions on average, Burst at once.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// DefaultRateLimit allows 6 questions a minute with bursts of 3.
var DefaultRateLimit = RateLimit{PerMinute: 6, Burst: 3}

// userLimiter keeps one token bucket per user, forgetting buckets idle for an hour.
type userLimiter struct {
	limit RateLimit

	mu       sync.Mutex
	buckets  map[string]*userBucket
	lastSwap time.Time
}

type userBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newUserLimiter(l RateLimit) *userLimiter {
	if l.PerMinute <= 0 {
		l.PerMinute = DefaultRateLimit.PerMinute
	}
	if l.Burst <= 0 {
		l.Burst = DefaultRateLimit.Burst
	}
	return &userLimiter{limit: l, buckets: map[string]*userBucket{}}
}

// allow reports whether user may ask now, taking a token when so.
func (u *userLimiter) allow(user string, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if now.Sub(u.lastSwap) > time.Hour {
		for k, b := range u.buckets {
			if now.Sub(b.seen) > time.Hour {
				delete(u.buckets, k)
			}
		}
		u.lastSwap = now
	}
	b, ok := u.buckets[user]
	if !ok {
		b = &userBucket{lim: rate.NewLimiter(rate.Limit(u.limit.PerMinute/60), u.limit.Burst)}
		u.buckets[user] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
