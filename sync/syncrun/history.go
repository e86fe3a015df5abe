package syncrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/sync/indexer"
)

// Run is one row of the run history.
type Run struct {
	ID         int64
	Source     string
	Mode       string // "full" or "incremental"
	DryRun     bool
	StartedAt  time.Time
	FinishedAt time.Time // zero while running, or when the process died mid-run
	Complete   bool      // the listing finished, so deletions were applied unless DeletesBlocked
	Listed     int
	Added      int
	Changed    int
	Unchanged  int
	Deleted    int
	ACLOnly    int
	Failed     int
	Withheld   int // listed documents whose access could not be resolved: readable by nobody
	// DeletesBlocked is how many deletions the mass-deletion guard held back (Deleted is then 0).
	DeletesBlocked int
	Error          string
	// ChangeLag is the longest wait, in this pass, between a change at the source and the pass
	// applying it (see changeLag); LagKnown is false when the pass applied no change with a
	// known time.
	ChangeLag time.Duration
	LagKnown  bool
}

// Kinds of RunFailure.
const (
	KindFailed   = "failed"   // could not be indexed; its previous version, if any, stays
	KindWithheld = "withheld" // access could not be resolved; readable by nobody meanwhile
)

// RunFailure is one document a run could not index (KindFailed) or withheld (KindWithheld),
// with the reason.
type RunFailure struct {
	ExternalID string
	Kind       string
	Reason     string
}

// History reads and writes the run history and the per-source sync cursor (tables sync_runs,
// sync_failures and sync_state of migrations 0003 and 0013).
type History struct {
	pool *pgxpool.Pool
}

// NewHistory returns the history stored in pool's database.
func NewHistory(pool *pgxpool.Pool) *History { return &History{pool: pool} }

func (h *History) start(ctx context.Context, source, mode string, dryRun bool) (int64, error) {
	var id int64
	err := h.pool.QueryRow(ctx, `INSERT INTO sync_runs (source, mode, dry_run) VALUES ($1, $2, $3) RETURNING id`,
		source, mode, dryRun).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record run start of %s: %w", source, err)
	}
	return id, nil
}

// finish writes a run's counts, error, failures, withheld documents and changed documents (for
// the notices of bot.Notifier) in one transaction.
func (h *History) finish(ctx context.Context, r Run, failures []indexer.Failure, withheld []indexer.Withheld, changes []indexer.Change) error {
	err := pgx.BeginFunc(ctx, h.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE sync_runs SET finished_at = now(), complete = $2, listed = $3, added = $4,
			changed = $5, unchanged = $6, deleted = $7, acl_only = $8, failed = $9, error = $10, withheld = $11,
			deletes_blocked = $12, change_lag_ms = $13 WHERE id = $1`,
			r.ID, r.Complete, r.Listed, r.Added, r.Changed, r.Unchanged, r.Deleted, r.ACLOnly, r.Failed, r.Error, r.Withheld,
			r.DeletesBlocked, lagMillis(r))
		if err != nil {
			return err
		}
		if err := recordChanges(ctx, tx, r.ID, changes); err != nil {
			return err
		}
		// The changes a watcher saw before this pass started are applied now.
		if r.Error == "" && !r.DryRun {
			if _, err := tx.Exec(ctx, `UPDATE sync_state SET pending_changes = 0, pending_since = NULL
				WHERE source = $1 AND pending_since <= $2`, r.Source, r.StartedAt); err != nil {
				return err
			}
		}
		var ids, kinds, reasons []string
		for _, f := range failures {
			ids, kinds, reasons = append(ids, f.ExternalID), append(kinds, KindFailed), append(reasons, f.Err.Error())
		}
		for _, w := range withheld {
			ids, kinds, reasons = append(ids, w.ExternalID), append(kinds, KindWithheld), append(reasons, w.Reason)
		}
		if len(ids) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO sync_failures (run_id, external_id, kind, reason)
			SELECT $1, x.id, x.kind, x.reason FROM unnest($2::text[], $3::text[], $4::text[]) AS x(id, kind, reason)
			ON CONFLICT (run_id, external_id) DO UPDATE SET kind = EXCLUDED.kind, reason = EXCLUDED.reason`, r.ID, ids, kinds, reasons)
		return err
	})
	if err != nil {
		return fmt.Errorf("record run %d of %s: %w", r.ID, r.Source, err)
	}
	return nil
}

// recordChanges writes a run's changed and deleted documents to source_changes.
func recordChanges(ctx context.Context, tx pgx.Tx, runID int64, changes []indexer.Change) error {
	if len(changes) == 0 {
		return nil
	}
	docs, kinds, versions, at := make([]int64, len(changes)), make([]string, len(changes)), make([]*int64, len(changes)), make([]time.Time, len(changes))
	for i, c := range changes {
		docs[i], kinds[i], at[i] = c.DocumentID, c.Kind, c.At
		if c.Kind == indexer.ChangeUpdated {
			versions[i] = &c.Version
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO source_changes (run_id, document_id, kind, doc_version, changed_at)
		SELECT $1, x.doc, x.kind, x.version, x.at FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::timestamptz[]) AS x(doc, kind, version, at)`,
		runID, docs, kinds, versions, at)
	if err != nil {
		return fmt.Errorf("record changed documents: %w", err)
	}
	return nil
}

func lagMillis(r Run) *int64 {
	if !r.LagKnown {
		return nil
	}
	ms := r.ChangeLag.Milliseconds()
	return &ms
}

const runColumns = `id, source, mode, dry_run, started_at, coalesce(finished_at, 'epoch'::timestamptz), complete,
	listed, added, changed, unchanged, deleted, acl_only, failed, withheld, deletes_blocked, error, change_lag_ms`

func scanRun(row pgx.Row) (Run, error) {
	var r Run
	var lag *int64
	err := row.Scan(&r.ID, &r.Source, &r.Mode, &r.DryRun, &r.StartedAt, &r.FinishedAt, &r.Complete,
		&r.Listed, &r.Added, &r.Changed, &r.Unchanged, &r.Deleted, &r.ACLOnly, &r.Failed, &r.Withheld, &r.DeletesBlocked, &r.Error, &lag)
	if lag != nil {
		r.ChangeLag, r.LagKnown = time.Duration(*lag)*time.Millisecond, true
	}
	if r.FinishedAt.Equal(time.Unix(0, 0)) {
		r.FinishedAt = time.Time{}
	}
	return r, err
}

// Last returns the newest run of a source that was not a dry run; ok is false when it never ran.
func (h *History) Last(ctx context.Context, source string) (r Run, ok bool, err error) {
	r, err = scanRun(h.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM sync_runs
		WHERE source = $1 AND NOT dry_run ORDER BY started_at DESC, id DESC LIMIT 1`, source))
	if errors.Is(err, pgx.ErrNoRows) {
		return Run{}, false, nil
	}
	if err != nil {
		return Run{}, false, fmt.Errorf("read last run of %s: %w", source, err)
	}
	return r, true, nil
}

// Runs returns a source's newest runs first, at most limit.
func (h *History) Runs(ctx context.Context, source string, limit int) ([]Run, error) {
	rows, err := h.pool.Query(ctx, `SELECT `+runColumns+` FROM sync_runs WHERE source = $1
		ORDER BY started_at DESC, id DESC LIMIT $2`, source, limit)
	if err != nil {
		return nil, fmt.Errorf("read runs of %s: %w", source, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("read runs of %s: %w", source, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Failures returns the documents a run could not index or withheld, by external id.
func (h *History) Failures(ctx context.Context, runID int64) ([]RunFailure, error) {
	rows, err := h.pool.Query(ctx, `SELECT external_id, kind, reason FROM sync_failures WHERE run_id = $1 ORDER BY external_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("read failures of run %d: %w", runID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RunFailure, error) {
		var f RunFailure
		return f, row.Scan(&f.ExternalID, &f.Kind, &f.Reason)
	})
	if err != nil {
		return nil, fmt.Errorf("read failures of run %d: %w", runID, err)
	}
	return out, nil
}

// cursor is a source's incremental sync position.
type cursor struct {
	PageToken  string
	LastFullAt time.Time
}

func (h *History) cursor(ctx context.Context, source string) (cursor, error) {
	var c cursor
	var last *time.Time
	err := h.pool.QueryRow(ctx, `SELECT page_token, last_full_at FROM sync_state WHERE source = $1`, source).Scan(&c.PageToken, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read sync cursor of %s: %w", source, err)
	}
	if last != nil {
		c.LastFullAt = *last
	}
	return c, nil
}

// saveCursor stores the page token; full marks a completed full listing.
func (h *History) saveCursor(ctx context.Context, source, token string, full bool) error {
	_, err := h.pool.Exec(ctx, `INSERT INTO sync_state (source, page_token, last_full_at)
		VALUES ($1, $2, CASE WHEN $3 THEN now() END)
		ON CONFLICT (source) DO UPDATE SET page_token = EXCLUDED.page_token,
			last_full_at = CASE WHEN $3 THEN now() ELSE sync_state.last_full_at END`, source, token, full)
	if err != nil {
		return fmt.Errorf("save sync cursor of %s: %w", source, err)
	}
	return nil
}
