package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/citahq/cita/rag/pgstore"
)

// replicaStats is what WatchReplicas reads at every scrape; pgstore.Replicas has it.
type replicaStats interface {
	Stats() (primaryReads uint64, replicas []pgstore.ReplicaStat)
}

// WatchReplicas exports the read replicas' routing: where searches ran, each replica's state
// and lag, and the searches that passed a replica over, by its state then.
func (m *Metrics) WatchReplicas(r replicaStats) {
	m.reg.MustRegister(&replicaCollector{stats: r})
}

var (
	replicaReadsDesc = prometheus.NewDesc(namespace+"_db_search_reads_total",
		"Search arm queries by where they ran: target is \"primary\" or a read replica (host:port/database).",
		[]string{"target"}, nil)
	replicaLagDesc = prometheus.NewDesc(namespace+"_db_replica_lag_seconds",
		"How far behind the primary a read replica is at most, by WAL replayed; -1 when unknown (down, not a standby, not checked yet).",
		[]string{"replica"}, nil)
	replicaHealthyDesc = prometheus.NewDesc(namespace+"_db_replica_healthy",
		"1 while a read replica serves searches: a standby within database.max_replica_lag; 0 while searches skip it.",
		[]string{"replica"}, nil)
	replicaSkipsDesc = prometheus.NewDesc(namespace+"_db_replica_skips_total",
		"Searches that passed a read replica over, by its state then (lagging, down, not_standby, unknown).",
		[]string{"replica", "reason"}, nil)
)

// replicaCollector reads the router's counters and states when Prometheus scrapes.
type replicaCollector struct {
	stats replicaStats
}

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- replicaReadsDesc
	ch <- replicaLagDesc
	ch <- replicaHealthyDesc
	ch <- replicaSkipsDesc
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	primary, replicas := c.stats.Stats()
	ch <- prometheus.MustNewConstMetric(replicaReadsDesc, prometheus.CounterValue, float64(primary), "primary")
	for _, r := range replicas {
		ch <- prometheus.MustNewConstMetric(replicaReadsDesc, prometheus.CounterValue, float64(r.Reads), r.Name)
		lag := -1.0
		if r.Lag >= 0 {
			lag = r.Lag.Seconds()
		}
		ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, lag, r.Name)
		healthy := 0.0
		if r.State == pgstore.ReplicaOK {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaHealthyDesc, prometheus.GaugeValue, healthy, r.Name)
		for _, reason := range []string{pgstore.ReplicaLagging, pgstore.ReplicaDown, pgstore.ReplicaNotStandby, pgstore.ReplicaUnknown} {
			ch <- prometheus.MustNewConstMetric(replicaSkipsDesc, prometheus.CounterValue, float64(r.Skips[reason]), r.Name, reason)
		}
	}
}
