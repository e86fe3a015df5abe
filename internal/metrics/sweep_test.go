package metrics_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/metrics"
)

type lagFunc func(ctx context.Context, name string) (time.Duration, bool, error)

func (f lagFunc) SweepLag(ctx context.Context, name string) (time.Duration, bool, error) {
	return f(ctx, name)
}

// TestSweepMetrics: the lag comes from the database's record of the last complete run, and
// runs, failed and closed channels are counted per sweep.
func TestSweepMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.WatchSweeps(lagFunc(func(_ context.Context, name string) (time.Duration, bool, error) {
		return 90 * time.Second, name == "slack", nil
	}), []string{"slack", "discord"})
	m.ObserveSweep("slack", bot.SweepResult{Channels: 4, Failed: 2, Closed: 1}, errors.New("2 of 4 channels could not be checked"))
	m.ObserveSweep("slack", bot.SweepResult{Channels: 4}, nil)
	page := scrape(t, m)
	for _, want := range []string{
		`cita_sweep_lag_seconds{sweep="slack"} 90`,
		`cita_sweep_runs_total{result="incomplete",sweep="slack"} 1`,
		`cita_sweep_runs_total{result="complete",sweep="slack"} 1`,
		`cita_sweep_channel_failures_total{sweep="slack"} 2`,
		`cita_sweep_channels_closed_total{sweep="slack"} 1`,
		`cita_sweep_lag_seconds{sweep="discord"} `, // never completed: since watching began
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
