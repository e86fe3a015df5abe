package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/internal/pgcluster"
)

// serverSettings are the settings of a PostgreSQL server that decide how fast cita loads and
// builds its vector index, with what the index holds: its chunks (the planner's estimate) and
// their dimension (0 when no chunk has a vector yet).
type serverSettings struct {
	maintenanceWorkMem, maxWALSize, sharedBuffers int64 // bytes
	parallelMaintenance                           int
	jit                                           bool
	chunks                                        int64
	dimension                                     int
}

// serverSettingsSQL reads serverSettings; the chunks table is the one search_path finds.
const serverSettingsSQL = `
SELECT pg_size_bytes(current_setting('maintenance_work_mem')), pg_size_bytes(current_setting('max_wal_size')),
	pg_size_bytes(current_setting('shared_buffers')), current_setting('max_parallel_maintenance_workers')::int,
	current_setting('jit') = 'on',
	coalesce((SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass('chunks')), 0)`

// readServerSettings reads s from conn; the dimension from one chunk's vector, when any.
func readServerSettings(ctx context.Context, conn *pgx.Conn) (serverSettings, error) {
	var s serverSettings
	if err := conn.QueryRow(ctx, serverSettingsSQL).Scan(&s.maintenanceWorkMem, &s.maxWALSize, &s.sharedBuffers,
		&s.parallelMaintenance, &s.jit, &s.chunks); err != nil {
		return s, err
	}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('chunks') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return s, err
	}
	err := conn.QueryRow(ctx, `SELECT coalesce((SELECT public.vector_dims(embedding) FROM chunks WHERE embedding IS NOT NULL LIMIT 1), 0)`).Scan(&s.dimension)
	return s, err
}

// minLoadWAL is the max_wal_size below which a bulk load checkpoints every few seconds (1 GB
// held about ten seconds of a load on the 2-core machine).
const minLoadWAL = 4 << 30

// checkServerSettings judges the settings a first index and its HNSW builds depend on and says
// what to set on a server cita does not run (DATABASE_URL): the graph of the index's chunks
// (at least a million of the configured dimension, or of the index's) must fit in
// maintenance_work_mem, max_wal_size must let a load run a minute between checkpoints, and jit
// must be off. The private cluster sizes these itself (internal/pgcluster). A miss is a
// warning: search works, loads and builds are slower.
func checkServerSettings(s serverSettings, dimension int) checkResult {
	if s.dimension > 0 {
		dimension = s.dimension
	}
	chunks := max(s.chunks, 1_000_000)
	need := roundUpGB(chunks * pgcluster.HNSWBytesPerVector(dimension) * 11 / 10)
	var problems, fixes []string
	if s.maintenanceWorkMem < need {
		problems = append(problems, fmt.Sprintf("maintenance_work_mem is %s: the HNSW graph of %s chunks of %d dimensions needs about %s while it is built, and a graph that does not fit is built on disk, several times slower",
			sizeText(s.maintenanceWorkMem), countText(chunks), dimension, sizeText(need)))
		fixes = append(fixes, fmt.Sprintf("ALTER SYSTEM SET maintenance_work_mem = '%dMB'", need>>20))
	}
	if s.parallelMaintenance == 0 {
		problems = append(problems, "max_parallel_maintenance_workers is 0: index builds use one core")
		fixes = append(fixes, "ALTER SYSTEM SET max_parallel_maintenance_workers = 1 (the server's cores - 1; /dev/shm must hold maintenance_work_mem)")
	}
	if s.maxWALSize < minLoadWAL {
		problems = append(problems, fmt.Sprintf("max_wal_size is %s: a bulk load checkpoints every few seconds", sizeText(s.maxWALSize)))
		fixes = append(fixes, "ALTER SYSTEM SET max_wal_size = '8GB'")
	}
	if s.jit {
		problems = append(problems, "jit is on: a search whose plan is estimated dear is compiled first, 200-500 ms")
		fixes = append(fixes, "ALTER SYSTEM SET jit = off")
	}
	if len(problems) == 0 {
		return checkResult{name: "server settings", ok: true, detail: fmt.Sprintf("maintenance_work_mem %s (a graph of %s chunks needs about %s), max_wal_size %s, jit off, shared_buffers %s",
			sizeText(s.maintenanceWorkMem), countText(chunks), sizeText(need), sizeText(s.maxWALSize), sizeText(s.sharedBuffers))}
	}
	return checkResult{name: "server settings", warn: true, detail: strings.Join(problems, "; "),
		fix: "as a superuser, if the server has the memory: " + strings.Join(fixes, "; ") + "; then SELECT pg_reload_conf()"}
}

// roundUpGB rounds b up to a whole GB.
func roundUpGB(b int64) int64 { return (b + 1<<30 - 1) &^ (1<<30 - 1) }

// sizeText writes a size in MB or GB.
func sizeText(b int64) string {
	if b >= 1<<30 && b%(1<<30) == 0 {
		return fmt.Sprintf("%d GB", b>>30)
	}
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MB", b>>20)
}

// countText writes a count with thousands separators.
func countText(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
