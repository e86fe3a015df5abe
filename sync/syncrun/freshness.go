package syncrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Freshness is how current a source's index is: its last successful pass, the change lag that
// pass measured, and the changes a watcher saw that no pass has applied yet.
type Freshness struct {
	Source string
	// LastSuccess is when the last pass without error finished (zero: none did).
	LastSuccess time.Time
	// LastLag is the newest measured change lag (see Run.ChangeLag); LagKnown is false when no
	// pass measured one.
	LastLag  time.Duration
	LagKnown bool
	// Pending counts the changes seen by a watcher and not applied yet, the oldest since
	// PendingSince (zero when none wait).
	Pending      int
	PendingSince time.Time
}

// Waiting is how long the oldest pending change has waited at now (0 when none waits).
func (f Freshness) Waiting(now time.Time) time.Duration {
	if f.Pending == 0 || f.PendingSince.IsZero() {
		return 0
	}
	return max(now.Sub(f.PendingSince), 0)
}

// Freshness returns source's freshness. It returns an error when the history cannot be read.
func (h *History) Freshness(ctx context.Context, source string) (Freshness, error) {
	f := Freshness{Source: source}
	var last, since *time.Time
	var lag *int64
	err := h.pool.QueryRow(ctx, `SELECT
		(SELECT max(finished_at) FROM sync_runs WHERE source = $1 AND NOT dry_run AND error = '' AND finished_at IS NOT NULL),
		(SELECT change_lag_ms FROM sync_runs WHERE source = $1 AND change_lag_ms IS NOT NULL ORDER BY finished_at DESC LIMIT 1),
		coalesce((SELECT pending_changes FROM sync_state WHERE source = $1), 0),
		(SELECT pending_since FROM sync_state WHERE source = $1)`, source).Scan(&last, &lag, &f.Pending, &since)
	if err != nil {
		return f, fmt.Errorf("read freshness of %s: %w", source, err)
	}
	if last != nil {
		f.LastSuccess = *last
	}
	if lag != nil {
		f.LastLag, f.LagKnown = time.Duration(*lag)*time.Millisecond, true
	}
	if since != nil {
		f.PendingSince = *since
	}
	return f, nil
}

// NotePending records n changes a watcher saw at the source at time at, not applied yet. It
// returns an error when the state cannot be written.
func (h *History) NotePending(ctx context.Context, source string, n int, at time.Time) error {
	_, err := h.pool.Exec(ctx, `INSERT INTO sync_state (source, pending_changes, pending_since) VALUES ($1, $2, $3)
		ON CONFLICT (source) DO UPDATE SET pending_changes = sync_state.pending_changes + EXCLUDED.pending_changes,
			pending_since = coalesce(sync_state.pending_since, EXCLUDED.pending_since)`, source, n, at)
	if err != nil {
		return fmt.Errorf("note pending changes of %s: %w", source, err)
	}
	return nil
}

// previousStart returns when the source's previous pass (before run id) started; zero when it
// has none.
func (h *History) previousStart(ctx context.Context, source string, id int64) (time.Time, error) {
	var t time.Time
	err := h.pool.QueryRow(ctx, `SELECT started_at FROM sync_runs WHERE source = $1 AND id < $2 AND NOT dry_run
		ORDER BY id DESC LIMIT 1`, source, id).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read previous run of %s: %w", source, err)
	}
	return t, nil
}
