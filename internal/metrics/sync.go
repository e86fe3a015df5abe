package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
	if r.LagKnown {
		m.syncChangeLag.WithLabelValues(source).Observe(r.ChangeLag.Seconds())
	}
	if err == nil && !r.FinishedAt.IsZero() {
		m.syncLastSuccess.WithLabelValues(source).Set(float64(r.FinishedAt.Unix()))
	}
	for label, n := range map[string]int{"added": r.Added, "changed": r.Changed, "unchanged": r.Unchanged,
		"deleted": r.Deleted, "acl_only": r.ACLOnly, "failed": r.Failed, "withheld": r.Withheld} {
		if n > 0 {
			m.syncDocuments.WithLabelValues(source, label).Add(float64(n))
		}
	}
}

// FreshnessReader reads a source's freshness (syncrun.History).
type FreshnessReader interface {
	Freshness(ctx context.Context, source string) (syncrun.Freshness, error)
}

// WatchFreshness exports, per source, the changes a watcher saw that no pass applied yet and how
// long the oldest has waited, read from the database on each scrape (every replica reports the
// same, whichever one syncs).
func (m *Metrics) WatchFreshness(r FreshnessReader, sources []string) {
	m.reg.MustRegister(freshnessCollector{r: r, sources: sources})
}

var (
	pendingDesc = prometheus.NewDesc(namespace+"_sync_changes_pending", "Changes seen at the source by a watcher and not applied by a pass yet.", []string{"source"}, nil)
	waitingDesc = prometheus.NewDesc(namespace+"_sync_change_waiting_seconds", "How long the oldest change not applied yet has waited (0 when none waits).", []string{"source"}, nil)
)

type freshnessCollector struct {
	r       FreshnessReader
	sources []string
}

func (c freshnessCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- waitingDesc
}

func (c freshnessCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := time.Now()
	for _, s := range c.sources {
		f, err := c.r.Freshness(ctx, s)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(pendingDesc, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(f.Pending), s)
		ch <- prometheus.MustNewConstMetric(waitingDesc, prometheus.GaugeValue, f.Waiting(now).Seconds(), s)
	}
}
