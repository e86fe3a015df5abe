package main

import (
	"strings"
	"testing"
)

func TestCheckServerSettings(t *testing.T) {
	t.Parallel()
	const gb = int64(1) << 30
	good := serverSettings{maintenanceWorkMem: 3 * gb, maxWALSize: 8 * gb, sharedBuffers: 6 * gb, parallelMaintenance: 1}
	tests := []struct {
		name  string
		s     serverSettings
		dim   int
		ok    bool
		wants []string
	}{
		{"sized for 1M chunks of 384 dimensions", good, 384, true, []string{"maintenance_work_mem 3 GB", "1,000,000 chunks needs about 3 GB"}},
		{"PostgreSQL's defaults", serverSettings{maintenanceWorkMem: 64 << 20, maxWALSize: gb, sharedBuffers: 128 << 20, parallelMaintenance: 2, jit: true}, 384, false,
			[]string{"maintenance_work_mem is 64 MB", "ALTER SYSTEM SET maintenance_work_mem = '3072MB'", "max_wal_size is 1 GB",
				"ALTER SYSTEM SET max_wal_size = '8GB'", "jit is on", "ALTER SYSTEM SET jit = off", "pg_reload_conf()"}},
		{"the index's own dimension and size count", serverSettings{maintenanceWorkMem: 3 * gb, maxWALSize: 8 * gb, parallelMaintenance: 1, chunks: 2_000_000, dimension: 1536}, 384, false,
			[]string{"2,000,000 chunks of 1536 dimensions needs about 15 GB", "maintenance_work_mem = '15360MB'"}},
		{"builds on one core", serverSettings{maintenanceWorkMem: 3 * gb, maxWALSize: 8 * gb}, 384, false,
			[]string{"max_parallel_maintenance_workers is 0", "max_parallel_maintenance_workers = 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkServerSettings(tt.s, tt.dim)
			if c.ok != tt.ok || (!c.ok && !c.warn) {
				t.Fatalf("ok %v warn %v, want ok %v or a warning: %+v", c.ok, c.warn, tt.ok, c)
			}
			for _, w := range tt.wants {
				if !strings.Contains(c.detail+" "+c.fix, w) {
					t.Errorf("lacks %q: %s / %s", w, c.detail, c.fix)
				}
			}
		})
	}
}
