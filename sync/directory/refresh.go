package directory

import (
	"context"
	"log/slog"
	"time"
)

// Lister reads the whole directory (Google.List).
type Lister interface {
	List(ctx context.Context) (Snapshot, error)
}

// Refresh timing: how often a Refresher checks whether a read is due, how long a failed read
// waits before the next attempt, and how long a claim lasts.
const (
	checkEvery = time.Minute
	retryAfter = 10 * time.Minute
	claimLease = time.Hour
)

// Refresher reads the directory into the Store when a read is due. Replicas share the schedule
// through the database: one claims each read, the others skip it. Construct it with NewRefresher.
type Refresher struct {
	lister Lister
	store  *Store
	every  time.Duration
	logger *slog.Logger
}

// NewRefresher returns a refresher that reads lister into store every every.
func NewRefresher(lister Lister, store *Store, every time.Duration, logger *slog.Logger) *Refresher {
	return &Refresher{lister: lister, store: store, every: every, logger: logger}
}

// RefreshIfDue reads the directory and replaces the snapshot when the last complete read is older
// than the refresh period, the last failed attempt is not too recent, and no other process is
// reading it. It reports whether it read, and returns the error of a read or write that failed
// (the previous snapshot then stays, and the failure is recorded in directory_state).
func (r *Refresher) RefreshIfDue(ctx context.Context) (bool, error) {
	ok, err := r.store.claim(ctx, r.every, min(retryAfter, r.every), claimLease)
	if err != nil || !ok {
		return false, err
	}
	start := time.Now()
	snap, err := r.lister.List(ctx)
	if err == nil {
		err = r.store.Replace(ctx, snap)
	}
	if err != nil {
		if ferr := r.store.fail(context.WithoutCancel(ctx), err); ferr != nil {
			r.logger.WarnContext(ctx, "record directory failure", slog.Any("error", ferr))
		}
		return true, err
	}
	r.logger.InfoContext(ctx, "directory refreshed", slog.Int("groups", snap.Groups), slog.Int("memberships", len(snap.Members)),
		slog.Duration("took", time.Since(start)))
	return true, nil
}

// Run refreshes whenever a read is due, checking every minute, until ctx ends. Failures are
// logged as errors: memberships older than max_age stop counting, narrowing access.
func (r *Refresher) Run(ctx context.Context) {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for {
		if _, err := r.RefreshIfDue(ctx); err != nil && ctx.Err() == nil {
			r.logger.ErrorContext(ctx, "directory refresh failed; the previous memberships stay until identity.google_groups.max_age",
				slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
