package bot

import "github.com/citahq/cita/internal/keyrate"

// RateLimit is the per-user question rate: PerMinute questions on average, Burst at once.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// DefaultRateLimit allows 6 questions a minute with bursts of 3.
var DefaultRateLimit = RateLimit{PerMinute: 6, Burst: 3}

// newUserLimiter returns a token bucket per key at l's rate; a zero PerMinute or Burst takes
// DefaultRateLimit's.
func newUserLimiter(l RateLimit) *keyrate.Limiter {
	if l.PerMinute <= 0 {
		l.PerMinute = DefaultRateLimit.PerMinute
	}
	if l.Burst <= 0 {
		l.Burst = DefaultRateLimit.Burst
	}
	return keyrate.New(l.PerMinute, l.Burst)
}
