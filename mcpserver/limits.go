package mcpserver

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Queue bounds the answers in progress across chat and MCP; *bot.Queue satisfies it. Acquire
// returns an error when every worker is busy and the line is full.
type Queue interface {
	Acquire(ctx context.Context, queued func(position int)) (release func(), err error)
}

// AskLimit is each caller's rate of ask calls: PerMinute on average, Burst at once. Zero
// PerMinute means no limit. search and get_document are not limited: they cost one query.
type AskLimit struct {
	PerMinute float64
	Burst     int
}

// callerLimiter keeps a token bucket per caller, forgetting buckets idle for an hour.
type callerLimiter struct {
	limit AskLimit

	mu      sync.Mutex
	buckets map[string]*callerBucket
	swept   time.Time
}

type callerBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newCallerLimiter(l AskLimit) *callerLimiter {
	if l.PerMinute <= 0 {
		return nil
	}
	return &callerLimiter{limit: l, buckets: map[string]*callerBucket{}}
}

// allow reports whether caller key may ask now, taking a token when so. A nil limiter allows
// everything.
func (c *callerLimiter) allow(key string, now time.Time) bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.swept) > time.Hour {
		for k, b := range c.buckets {
			if now.Sub(b.seen) > time.Hour {
				delete(c.buckets, k)
			}
		}
		c.swept = now
	}
	b, ok := c.buckets[key]
	if !ok {
		b = &callerBucket{lim: rate.NewLimiter(rate.Limit(c.limit.PerMinute/60), max(1, c.limit.Burst))}
		c.buckets[key] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
