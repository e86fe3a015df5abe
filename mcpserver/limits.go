package mcpserver

import (
	"context"

	"github.com/citahq/cita/internal/keyrate"
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

// newCallerLimiter returns a token bucket per caller at l's rate, or nil (no limit) when
// PerMinute is zero.
func newCallerLimiter(l AskLimit) *keyrate.Limiter {
	if l.PerMinute <= 0 {
		return nil
	}
	return keyrate.New(l.PerMinute, l.Burst)
}
