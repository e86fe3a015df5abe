package bot

import (
	"context"
	"time"
)

// CheckRetries space the retries of a check of who reads a channel after a change was heard of
// (a join, a permission change), when the platform or the database fails: about 4 s in all,
// the longest a change stays unresolved before the adapter fails closed.
var CheckRetries = []time.Duration{250 * time.Millisecond, time.Second, 3 * time.Second}

// Retrying calls fn until it succeeds, waiting CheckRetries between tries (telling retried of
// each failure it retries), and returns fn's last error, or ctx's error when ctx ends first.
func Retrying(ctx context.Context, fn func() error, retried func(error)) error {
	err := fn()
	for _, wait := range CheckRetries {
		if err == nil {
			return nil
		}
		if retried != nil {
			retried(err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		err = fn()
	}
	return err
}
