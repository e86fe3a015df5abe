package bot

import "github.com/citahq/cita/internal/keyrate"

// RateLimit is the per-user question rate: PerMinute questions on average, Burst at once.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// DefaultRateLimit allows 6 questions a minute with bursts of 3.
var DefaultRateLimit = RateLimit{PerMinute: 6, Burst: 3}

// WithDefaults returns l with DefaultRateLimit's rate where PerMinute is not positive and its
// burst where Burst is not positive. Every limiter of questions takes its rate through it (the
// chat handler's per person, the MCP server's per caller), so one configured rate means the
// same everywhere.
func (l RateLimit) WithDefaults() RateLimit {
	if l.PerMinute <= 0 {
		l.PerMinute = DefaultRateLimit.PerMinute
	}
	if l.Burst <= 0 {
		l.Burst = DefaultRateLimit.Burst
	}
	return l
}

// newUserLimiter returns a token bucket per key at l's rate, defaults applied (WithDefaults).
func newUserLimiter(l RateLimit) *keyrate.Limiter {
	l = l.WithDefaults()
	return keyrate.New(l.PerMinute, l.Burst)
}
