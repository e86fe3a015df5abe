package metrics

import (
	"context"
	"errors"

	"github.com/citahq/cita/sync/syncrun"
)

// SyncRunner runs one pass of a source; *syncrun.Runner and the scheduler's Runner fit it.
type SyncRunner interface {
	Run(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error)
}

// observedRunner counts the passes and documents of the runner it wraps.
type observedRunner struct {
	next SyncRunner
	m    *Metrics
}

// InstrumentRunner returns a runner that runs passes with next and records each pass's result,
// duration and document counts. Give it to scheduler.New in place of the runner.
func (m *Metrics) InstrumentRunner(next SyncRunner) SyncRunner {
	return observedRunner{next: next, m: m}
}

// Run implements SyncRunner; it returns next's result and error unchanged.
func (o observedRunner) Run(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error) {
	res, err := o.next.Run(ctx, src, ro)
	o.m.ObserveSync(src.Name, res, err)
	return res, err
}

// ObserveSync records one sync pass of source: its result, duration and documents.
func (m *Metrics) ObserveSync(source string, res syncrun.Result, err error) {
	result := "ok"
	switch {
	case errors.Is(err, syncrun.ErrBusy):
		result = "skipped_locked"
	case errors.Is(err, context.Canceled):
		result = "interrupted"
	case errors.Is(err, syncrun.ErrMassDelete):
		result = "deletions_blocked"
	case err != nil:
		result = "failed"
	case !res.Run.Complete || res.Run.Failed > 0 || res.Run.Withheld > 0:
		result = "partial"
	}
	m.syncRuns.WithLabelValues(source, result).Inc()
	if result == "skipped_locked" {
		return
	}
	if res.Took > 0 {
		m.syncSeconds.WithLabelValues(source).Observe(res.Took.Seconds())
	}
	if result == "ok" || result == "partial" || result == "deletions_blocked" {
		// A pass that listed the source says how many deletions wait for a confirmation now
		// (0 once they are confirmed or the source is repaired): the gauge to alert on.
		m.syncDeletesBlocked.WithLabelValues(source).Set(float64(res.Run.DeletesBlocked))
	}
	r := res.Run
	for label, n := range map[string]int{"added": r.Added, "changed": r.Changed, "unchanged": r.Unchanged,
		"deleted": r.Deleted, "acl_only": r.ACLOnly, "failed": r.Failed, "withheld": r.Withheld} {
		if n > 0 {
			m.syncDocuments.WithLabelValues(source, label).Add(float64(n))
		}
	}
}
