package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// settingsFile is the file in the data directory that holds the settings cita manages.
const settingsFile = "cita.conf"

// serverSettings are cita's fixed settings for a retrieval workload; the sizes come from the
// machine (Sized). No statement is compiled (jit): compiling a search took 200-500 ms whenever
// its estimated cost passed jit_above_cost (a large exact scan, a plan whose alternatives were
// penalised), more than the search itself.
var serverSettings = [][2]string{
	{"work_mem", "'32MB'"},
	{"max_connections", "100"},
	{"max_parallel_workers_per_gather", "2"},
	{"random_page_cost", "1.1"},
	{"jit", "off"},
	{"checkpoint_timeout", "'15min'"},
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

// settingsText returns the content of settingsFile for a server on m.
func settingsText(m Machine, fast bool) string {
	var b strings.Builder
	b.WriteString("# Written by cita at every start: do not edit, use ALTER SYSTEM to override.\n")
	fmt.Fprintf(&b, "# Sized for %d MB of memory, %d CPUs, %d MB of /dev/shm, %d MB of free disk.\n",
		m.Memory/mib, m.CPUs, m.SharedMemory/mib, m.FreeDisk/mib)
	for _, kv := range append(Sized(m, fast).settings(), serverSettings...) {
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
	if err := os.WriteFile(path, []byte(settingsText(DetectMachine(r.dataDir), r.fast)), 0o600); err != nil {
		return fmt.Errorf("write server settings: %w", err)
	}
	return r.user.chown(path)
}
