package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/rag/pgstore"
)

// replicaStatsFunc is a stand-in for pgstore.Replicas.
type replicaStatsFunc func() (uint64, []pgstore.ReplicaStat)

func (f replicaStatsFunc) Stats() (uint64, []pgstore.ReplicaStat) { return f() }

func TestWatchReplicasExportsRoutingAndLag(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.WatchReplicas(replicaStatsFunc(func() (uint64, []pgstore.ReplicaStat) {
		return 3, []pgstore.ReplicaStat{
			{Name: "replica1:5432/cita", State: pgstore.ReplicaOK, Lag: 1500 * time.Millisecond, Reads: 40},
			{Name: "replica2:5432/cita", State: pgstore.ReplicaLagging, Lag: 9 * time.Second, Reads: 2,
				Skips: map[string]uint64{pgstore.ReplicaLagging: 7}},
			{Name: "replica3:5432/cita", State: pgstore.ReplicaDown, Lag: -1},
		}
	}))
	page := scrape(t, m)
	for _, want := range []string{
		`cita_db_search_reads_total{target="primary"} 3`,
		`cita_db_search_reads_total{target="replica1:5432/cita"} 40`,
		`cita_db_replica_lag_seconds{replica="replica1:5432/cita"} 1.5`,
		`cita_db_replica_lag_seconds{replica="replica3:5432/cita"} -1`,
		`cita_db_replica_healthy{replica="replica1:5432/cita"} 1`,
		`cita_db_replica_healthy{replica="replica2:5432/cita"} 0`,
		`cita_db_replica_skips_total{reason="lagging",replica="replica2:5432/cita"} 7`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grep(page, "cita_db_"))
		}
	}
}
