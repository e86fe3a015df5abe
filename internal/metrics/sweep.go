package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/citahq/cita/bot"
)

// SweepLagReader reads how long ago a sweep last completed (bot/pgbot's SweepLag).
type SweepLagReader interface {
	SweepLag(ctx context.Context, name string) (lag time.Duration, ever bool, err error)
}

var (
	sweepRunsDesc = "Reconciliation sweep runs on this replica by sweep (slack, discord) and result: complete, or incomplete " +
		"(a channel could not be checked, the claim was lost, the database failed; retried at the next check)."
	sweepLagDesc = prometheus.NewDesc(namespace+"_sweep_lag_seconds",
		"Time since the reconciliation sweep last completed on any replica (read from the database; since this process "+
			"started watching when it never completed). Alert when it exceeds a few intervals.", []string{"sweep"}, nil)
)

// WatchSweeps registers the sweep counters and a lag gauge per sweep name, read from r on each
// scrape (every replica reports the same lag, whichever one swept).
func (m *Metrics) WatchSweeps(r SweepLagReader, names []string) {
	m.sweepRuns = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "sweep_runs_total", Help: sweepRunsDesc},
		[]string{"sweep", "result"})
	m.sweepFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "sweep_channel_failures_total",
		Help: "Channels a sweep run could not check (nothing withdrawn there; retried)."}, []string{"sweep"})
	m.sweepClosed = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "sweep_channels_closed_total",
		Help: "Channels whose answers a sweep withdrew because the platform says cita can no longer see who reads them."}, []string{"sweep"})
	m.reg.MustRegister(m.sweepRuns, m.sweepFailures, m.sweepClosed, sweepLagCollector{r: r, names: names, since: time.Now()})
}

// ObserveSweep implements bot.SweepObserver; it does nothing before WatchSweeps.
func (m *Metrics) ObserveSweep(name string, res bot.SweepResult, err error) {
	if m.sweepRuns == nil {
		return
	}
	result := "complete"
	if err != nil {
		result = "incomplete"
	}
	m.sweepRuns.WithLabelValues(name, result).Inc()
	m.sweepFailures.WithLabelValues(name).Add(float64(res.Failed))
	m.sweepClosed.WithLabelValues(name).Add(float64(res.Closed))
}

type sweepLagCollector struct {
	r     SweepLagReader
	names []string
	since time.Time
}

func (c sweepLagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sweepLagDesc }

func (c sweepLagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, name := range c.names {
		lag, ever, err := c.r.SweepLag(ctx, name)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(sweepLagDesc, err)
			continue
		}
		if !ever {
			lag = time.Since(c.since)
		}
		ch <- prometheus.MustNewConstMetric(sweepLagDesc, prometheus.GaugeValue, lag.Seconds(), name)
	}
}
