// Package syncrun runs one sync pass of a source: take the source's advisory lock, list it
// (fully, or through its change feed), hand the listing to the indexer, and record the run, its
// counts and its per-document failures in the run history.
package syncrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
)

// Connector lists a source. items holds every document listed, even when err is not nil;
// complete is true only when the listing reached its end without error, and only then are
// documents missing from it deleted.
type Connector interface {
	List(ctx context.Context) (items []indexer.Item, complete bool, err error)
}

// ChangeFeed is implemented by connectors with an incremental change API (Google Drive).
// StartPageToken returns the position of "now"; Changes returns what changed since token, the
// ids removed (deleted, trashed or no longer visible) and the token of the next run. Changes
// returns an error, and nothing else, when the feed could not be read to its end.
type ChangeFeed interface {
	StartPageToken(ctx context.Context) (string, error)
	Changes(ctx context.Context, token string) (changed []indexer.Item, removed []string, next string, err error)
}

// Source is a named connector. FullEvery (for change feeds) forces a full listing when the last
// one is older; zero means 24 hours. MaxDeleteFraction is the share of its documents a pass may
// delete without --allow-mass-delete (nil: indexer.DefaultMaxDeleteFraction).
type Source struct {
	Name              string
	Connector         Connector
	FullEvery         time.Duration
	MaxDeleteFraction *float64
}

// ErrMassDelete is returned (wrapped) by Runner.Run when the pass would have deleted more than
// the source's max_delete_fraction of its documents, or all of them, and so deleted none. The
// rest of the pass was applied; RunOptions.AllowMassDelete confirms the deletions.
var ErrMassDelete = errors.New("mass deletion held back")

// RunOptions adjusts one pass.
type RunOptions struct {
	Full   bool // list everything even when a change feed could be used
	DryRun bool // count what would change; write nothing to the index or the cursor
	// AllowMassDelete confirms this pass's deletions even when they exceed the source's
	// MaxDeleteFraction or are all of its documents.
	AllowMassDelete bool
	// Progress is called after each listed item (see indexer.Options.Progress).
	Progress func(done, total int, item string)
	// Listed is called once the listing is known, with its size and mode.
	Listed func(n int, mode string)
	// ChangedAt is when the earliest change this pass is for happened at the source, when a
	// watcher (fsnotify, a Drive push notification) saw it; zero for a scheduled pass. It
	// measures the pass's change lag (Run.ChangeLag).
	ChangedAt time.Time
}

// Result is a finished (or interrupted) pass.
type Result struct {
	Run      Run
	Failures []indexer.Failure
	Withheld []indexer.Withheld // listed documents readable by nobody until their access resolves
	// Changes are the indexed documents the pass re-indexed with new content or deleted,
	// recorded for the notices in the threads that cited them.
	Changes []indexer.Change
	Took    time.Duration
}

// Runner runs passes against one index. Construct it with New.
type Runner struct {
	pool     *pgxpool.Pool
	store    indexer.Store
	embedder rag.Embedder
	opts     indexer.Options
	history  *History
	logger   *slog.Logger
}

// New returns a runner writing to store (whose database pool also holds the run history and the
// locks) and embedding with embedder. opts sets chunking, limits and the embedding batch.
func New(pool *pgxpool.Pool, store indexer.Store, embedder rag.Embedder, opts indexer.Options, logger *slog.Logger) *Runner {
	return &Runner{pool: pool, store: store, embedder: embedder, opts: opts, history: NewHistory(pool), logger: logger}
}

// History returns the run history the runner writes.
func (r *Runner) History() *History { return r.history }

// Run makes one pass over src. It returns ErrBusy (wrapped) when another run holds the source,
// the listing's error when the source could not be listed (the run is recorded with it; nothing
// is deleted), ErrMassDelete (wrapped) when the pass held back a mass deletion (everything else
// it found was applied), and ctx's error when cancelled. Per-document failures are not errors:
// they are in Result.Failures and the history, and their documents keep their previous version;
// withheld documents are in Result.Withheld.
func (r *Runner) Run(ctx context.Context, src Source, ro RunOptions) (Result, error) {
	start := time.Now()
	lock, err := tryLock(ctx, r.pool, src.Name)
	if err != nil {
		return Result{}, err
	}
	defer lock.release()

	feed, _ := src.Connector.(ChangeFeed)
	cur, err := r.history.cursor(ctx, src.Name)
	if err != nil {
		return Result{}, err
	}
	mode := "full"
	fullEvery := src.FullEvery
	if fullEvery <= 0 {
		fullEvery = 24 * time.Hour
	}
	if feed != nil && !ro.Full && cur.PageToken != "" && time.Since(cur.LastFullAt) < fullEvery {
		mode = "incremental"
	}
	runID, err := r.history.start(ctx, src.Name, mode, ro.DryRun)
	if err != nil {
		return Result{}, err
	}
	opts := r.opts
	opts.DryRun, opts.Progress = ro.DryRun, ro.Progress
	opts.MaxDeleteFraction, opts.AllowMassDelete = src.MaxDeleteFraction, ro.AllowMassDelete
	ix := indexer.New(r.store, r.embedder, opts, r.logger.With(slog.String("source", src.Name)))

	run := Run{ID: runID, Source: src.Name, Mode: mode, DryRun: ro.DryRun, StartedAt: start}
	var rep *indexer.Report
	var passErr error
	if mode == "incremental" {
		rep, passErr = r.incremental(ctx, ix, src, feed, cur.PageToken, ro, &run)
	} else {
		rep, passErr = r.full(ctx, ix, src, feed, ro, &run)
	}
	if rep != nil {
		run.Listed, run.Added, run.Changed, run.Unchanged = rep.Listed, rep.Added, rep.Changed, rep.Unchanged
		run.Deleted, run.ACLOnly, run.Failed, run.Withheld = rep.Deleted, rep.ACLOnly, len(rep.Failed), len(rep.Withheld)
		run.DeletesBlocked = rep.DeletesBlocked
	}
	var massErr error
	if run.DeletesBlocked > 0 {
		massErr = massDeleteError(src, rep)
		r.logger.ErrorContext(ctx, "sync held back a mass deletion: nothing was deleted", slog.String("source", src.Name),
			slog.Int64("run_id", runID), slog.Int("would_delete", rep.DeletesBlocked), slog.Int("documents", rep.Known),
			slog.String("confirm", "cita sync --source "+src.Name+" --allow-mass-delete"))
	}
	run.Error = runError(run, rep, passErr, massErr)
	prevStart, err := r.history.previousStart(ctx, src.Name, runID)
	if err != nil {
		r.logger.WarnContext(ctx, "read previous run", slog.String("source", src.Name), slog.String("error", err.Error()))
	}
	passErr = errors.Join(passErr, massErr)
	run.FinishedAt = time.Now()
	if passErr == nil && !ro.DryRun {
		run.ChangeLag, run.LagKnown = changeLag(ro.ChangedAt, rep, prevStart, run.FinishedAt)
	}
	res := Result{Run: run, Took: run.FinishedAt.Sub(start)}
	if rep != nil {
		res.Failures, res.Withheld, res.Changes = rep.Failed, rep.Withheld, rep.Changes
	}
	// Record even when ctx was cancelled (a stopping scheduler): the row must not stay "running".
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := r.history.finish(recordCtx, run, res.Failures, res.Withheld, res.Changes); err != nil {
		return res, errors.Join(passErr, err)
	}
	if run.Withheld > 0 {
		r.logger.WarnContext(ctx, "documents withheld: their access could not be resolved, so nobody can read them until it is",
			slog.String("source", src.Name), slog.Int("withheld", run.Withheld),
			slog.String("first", rep.Withheld[0].ExternalID), slog.String("reason", rep.Withheld[0].Reason))
	}
	r.logger.InfoContext(ctx, "sync run finished", slog.String("source", src.Name), slog.String("mode", mode),
		slog.Int("listed", run.Listed), slog.Int("added", run.Added), slog.Int("changed", run.Changed),
		slog.Int("deleted", run.Deleted), slog.Int("acl_only", run.ACLOnly), slog.Int("failed", run.Failed),
		slog.Int("withheld", run.Withheld), slog.Bool("complete", run.Complete), slog.Duration("took", res.Took))
	return res, passErr
}

// changeLag is the longest wait between a change at the source and this pass's end: from the
// watcher's time when it gave one, else from the modification times of the documents the pass
// added or changed that are newer than the previous pass's start (older ones were waiting for
// another reason: a failure, a new rule). known is false when neither applies.
func changeLag(changedAt time.Time, rep *indexer.Report, prevStart, finished time.Time) (lag time.Duration, known bool) {
	earliest := changedAt
	if rep != nil && !prevStart.IsZero() {
		for _, m := range rep.ChangedModified {
			if m.After(prevStart) && m.Before(finished) && (earliest.IsZero() || m.Before(earliest)) {
				earliest = m
			}
		}
	}
	if earliest.IsZero() || (rep != nil && rep.Added+rep.Changed+rep.Deleted+rep.ACLOnly == 0 && changedAt.IsZero()) {
		return 0, false
	}
	return max(finished.Sub(earliest), 0), true
}

// massDeleteError says why a pass deleted nothing and how to confirm the deletions.
func massDeleteError(src Source, rep *indexer.Report) error {
	fraction := indexer.DefaultMaxDeleteFraction
	if src.MaxDeleteFraction != nil {
		fraction = *src.MaxDeleteFraction
	}
	why := fmt.Sprintf("more than max_delete_fraction %g of them", fraction)
	if rep.DeletesBlocked >= rep.Known {
		why = "all of them"
	}
	return fmt.Errorf("%w: the listing of %s would delete %d of its %d indexed documents (%s), so nothing was deleted; "+
		"if the source is unmounted, its share revoked or its prefix wrong, fix that; if the documents are really gone, confirm with "+
		"`cita sync --source %s --allow-mass-delete`", ErrMassDelete, src.Name, rep.DeletesBlocked, rep.Known, why, src.Name)
}

// runError is the run's error column: the pass's error, else a summary of its failed
// documents; then the held-back deletions and the withheld documents ("" when all went well).
func runError(run Run, rep *indexer.Report, passErr, massErr error) string {
	var parts []string
	if passErr != nil {
		parts = append(parts, passErr.Error())
	}
	if massErr != nil {
		parts = append(parts, massErr.Error())
	}
	if run.Failed > 0 && passErr == nil {
		parts = append(parts, fmt.Sprintf("%d of %d documents failed and keep their previous version; first: %s: %v",
			run.Failed, run.Listed, rep.Failed[0].ExternalID, rep.Failed[0].Err))
	}
	if run.Withheld > 0 {
		parts = append(parts, fmt.Sprintf("%d documents withheld (readable by nobody) because their access could not be resolved; first: %s: %s",
			run.Withheld, rep.Withheld[0].ExternalID, rep.Withheld[0].Reason))
	}
	return strings.Join(parts, "; ")
}

// full lists everything. The change-feed token is taken before listing, so that changes made
// while listing are seen again by the next incremental run.
func (r *Runner) full(ctx context.Context, ix *indexer.Indexer, src Source, feed ChangeFeed, ro RunOptions, run *Run) (*indexer.Report, error) {
	var token string
	if feed != nil {
		t, err := feed.StartPageToken(ctx)
		if err != nil {
			return nil, fmt.Errorf("read change token of %s: %w", src.Name, err)
		}
		token = t
	}
	items, complete, listErr := src.Connector.List(ctx)
	complete = complete && listErr == nil
	if listErr != nil {
		listErr = fmt.Errorf("list %s: %w", src.Name, listErr)
		if len(items) == 0 {
			return nil, listErr
		}
		r.logger.WarnContext(ctx, "listing incomplete: indexing what was listed, deleting nothing",
			slog.String("source", src.Name), slog.Int("listed", len(items)), slog.String("error", listErr.Error()))
	}
	if ro.Listed != nil {
		ro.Listed(len(items), "full")
	}
	rep, err := ix.Sync(ctx, src.Name, items, complete)
	if err != nil {
		return rep, errors.Join(listErr, err)
	}
	run.Complete = complete
	// Held-back deletions keep the cursor where it was, so that the next pass meets the same
	// deletions again (replaying the changes since the old token, or listing in full) and says
	// so again, until they are confirmed or the source is repaired.
	if feed != nil && complete && !ro.DryRun && rep.DeletesBlocked == 0 {
		if err := r.history.saveCursor(ctx, src.Name, token, true); err != nil {
			return rep, err
		}
	}
	return rep, listErr
}

// incremental applies the change feed since token. The token advances only when every document
// succeeded and no deletion was held back: otherwise the next run replays the same changes (the
// ones already indexed are skipped by fingerprint) and retries the failed ones or asks again for
// the deletions. A document that keeps failing is replayed until the next full listing
// (Source.FullEvery), which resets the token.
func (r *Runner) incremental(ctx context.Context, ix *indexer.Indexer, src Source, feed ChangeFeed, token string, ro RunOptions, run *Run) (*indexer.Report, error) {
	changed, removed, next, err := feed.Changes(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("read changes of %s: %w", src.Name, err)
	}
	if ro.Listed != nil {
		ro.Listed(len(changed), "incremental")
	}
	rep, err := ix.SyncChanges(ctx, src.Name, changed, removed)
	if err != nil {
		return rep, err
	}
	run.Complete = true
	if !ro.DryRun && len(rep.Failed) == 0 && rep.DeletesBlocked == 0 {
		if err := r.history.saveCursor(ctx, src.Name, next, false); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
