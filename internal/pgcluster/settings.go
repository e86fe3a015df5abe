package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// settingsFile is the file in the data directory that holds the settings cita manages.
const settingsFile = "cita.conf"

// serverSettings are sized for the machine cita targets (2 cores, 24 GB of memory) and a
// retrieval workload: large maintenance memory for HNSW index builds, moderate work_mem for
// hybrid-search sorts and joins.
var serverSettings = [][2]string{
	{"shared_buffers", "'512MB'"},
	{"effective_cache_size", "'8GB'"},
	{"maintenance_work_mem", "'512MB'"},
	{"work_mem", "'32MB'"},
	{"max_connections", "100"},
	{"max_parallel_workers_per_gather", "2"},
	{"max_parallel_maintenance_workers", "2"},
	{"random_page_cost", "1.1"},
	{"log_min_duration_statement", "'2s'"},
}

// fastSettings trade crash safety for speed; only for tests and benchmarks.
var fastSettings = [][2]string{
	{"fsync", "off"},
	{"synchronous_commit", "off"},
	{"full_page_writes", "off"},
	// Test processes of several packages (and several checkouts) share one test cluster.
	{"max_connections", "400"},
}

// settingsText returns the content of settingsFile.
func settingsText(fast bool) string {
	var b strings.Builder
	b.WriteString("# Written by cita at every start: do not edit, use ALTER SYSTEM to override.\n")
	for _, kv := range serverSettings {
		fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
	}
	if fast {
		b.WriteString("# Fast mode (tests, benchmarks): a crash can lose or corrupt data.\n")
		for _, kv := range fastSettings {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
		}
	}
	return b.String()
}

// writeSettings rewrites settingsFile in the data directory, readable by the server user.
func (r *resolved) writeSettings() error {
	path := filepath.Join(r.dataDir, settingsFile)
	if err := os.WriteFile(path, []byte(settingsText(r.fast)), 0o600); err != nil {
		return fmt.Errorf("write server settings: %w", err)
	}
	return r.user.chown(path)
}
