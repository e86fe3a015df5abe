package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/citahq/cita/bot"
)

// GapCounter reads how many gaps are open (bot/pgbot's GapCounts).
type GapCounter interface {
	GapCounts(ctx context.Context, since time.Time) (open, resolved int, err error)
}

var gapsOpenDesc = prometheus.NewDesc(namespace+"_gaps_open",
	"Gap questions (declined, hedged or rated down; asked in public channels or shared by their askers) not resolved yet, "+
		"read from the database on each scrape.", nil, nil)

// WatchGaps registers the open-gaps gauge, read from r on each scrape, and the follow-through
// counters (ObserveGapFollow).
func (m *Metrics) WatchGaps(r GapCounter) {
	m.gapFollow = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "gaps_follow_ups_total",
		Help: "Gap questions asked again after a sync, by outcome: resolved (answered in place), unsure (still not answered " +
			"confidently from the change), skipped, failed."}, []string{"outcome"})
	m.reg.MustRegister(m.gapFollow, gapsOpenCollector{r: r})
}

// ObserveGapFollow counts one follow-through pass; it does nothing before WatchGaps.
func (m *Metrics) ObserveGapFollow(res bot.GapFollowResult) {
	if m.gapFollow == nil {
		return
	}
	m.gapFollow.WithLabelValues("resolved").Add(float64(res.Resolved))
	m.gapFollow.WithLabelValues("unsure").Add(float64(res.Unsure))
	m.gapFollow.WithLabelValues("skipped").Add(float64(res.Skipped))
	m.gapFollow.WithLabelValues("failed").Add(float64(res.Failed))
}

type gapsOpenCollector struct{ r GapCounter }

func (c gapsOpenCollector) Describe(ch chan<- *prometheus.Desc) { ch <- gapsOpenDesc }

func (c gapsOpenCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	open, _, err := c.r.GapCounts(ctx, time.Now())
	if err != nil {
		ch <- prometheus.NewInvalidMetric(gapsOpenDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(gapsOpenDesc, prometheus.GaugeValue, float64(open))
}
