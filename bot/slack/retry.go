package slack

import (
	"context"
	"errors"
	"time"

	"github.com/slack-go/slack"
)

// maxRateLimitWait bounds one Retry-After wait; longer waits give up.
const maxRateLimitWait = 30 * time.Second

// rateLimited returns the Retry-After of a Slack 429, if err is one.
func rateLimited(err error) (time.Duration, bool) {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return rl.RetryAfter, true
	}
	return 0, false
}

// withRetry calls fn, waiting out up to three Slack 429s as their Retry-After says.
func withRetry(ctx context.Context, fn func() error) error {
	var err error
	for range 4 {
		if err = fn(); err == nil {
			return nil
		}
		wait, ok := rateLimited(err)
		if !ok || wait > maxRateLimitWait {
			return err
		}
		if wait <= 0 {
			wait = time.Second
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}
