package metrics_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/sync/syncrun"
)

type freshnessFunc func(ctx context.Context, source string) (syncrun.Freshness, error)

func (f freshnessFunc) Freshness(ctx context.Context, source string) (syncrun.Freshness, error) {
	return f(ctx, source)
}

func TestFreshnessMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.WatchFreshness(freshnessFunc(func(_ context.Context, source string) (syncrun.Freshness, error) {
		if source == "share" {
			return syncrun.Freshness{Source: source, Pending: 3, PendingSince: time.Now().Add(-90 * time.Second)}, nil
		}
		return syncrun.Freshness{Source: source}, nil
	}), []string{"share", "drive"})
	finished := time.Unix(1_800_000_000, 0)
	r := m.InstrumentRunner(runnerFunc(func(context.Context, syncrun.Source, syncrun.RunOptions) (syncrun.Result, error) {
		return syncrun.Result{Run: syncrun.Run{Complete: true, Changed: 1, ChangeLag: 700 * time.Millisecond, LagKnown: true, FinishedAt: finished}}, nil
	}))
	_, _ = r.Run(context.Background(), syncrun.Source{Name: "share"}, syncrun.RunOptions{})
	page := scrape(t, m)
	var waiting float64
	for _, l := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(l, `cita_sync_change_waiting_seconds{source="share"} `); ok {
			waiting, _ = strconv.ParseFloat(v, 64)
		}
	}
	if waiting < 89 || waiting > 120 {
		t.Errorf("the oldest pending change has waited %gs by /metrics; want about 90", waiting)
	}
	for _, want := range []string{
		`cita_sync_changes_pending{source="share"} 3`,
		`cita_sync_changes_pending{source="drive"} 0`,
		`cita_sync_change_lag_seconds_bucket{source="share",le="1"} 1`,
		`cita_sync_change_lag_seconds_bucket{source="share",le="0.5"} 0`,
		`cita_sync_last_success_timestamp_seconds{source="share"} 1.8e+09`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
