// Package testdb gives tests a real PostgreSQL with pgvector: the server named by
// $CITA_TEST_DATABASE_URL, or else a private cluster that every test process shares and that
// outlives the run. Each process holds a lease on it (lease.go), so the cluster is stopped (by
// `make test` through ./internal/testdb/testsuite, or `go run ./internal/testdb/stopcluster`)
// only when no other suite on the machine is using it. Tests never skip for lack of a database:
// they fail and say how to get one.
package testdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/internal/pgcluster"
)

// EnvURL names the variable that points tests at an existing PostgreSQL (with pgvector 0.8+,
// unaccent and pg_trgm installed, and a role allowed to create schemas).
const EnvURL = "CITA_TEST_DATABASE_URL"

// testDatabase is the database created in the private test cluster.
const testDatabase = "cita_test"

// setupTimeout bounds starting the cluster and preparing the database.
const setupTimeout = 2 * time.Minute

// SharedClusterDir returns the data directory of the private test cluster:
// cita-test-pg-<uid> under os.TempDir(), one per user, shared by all test processes.
func SharedClusterDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("cita-test-pg-%d", os.Getuid()))
}

var shared struct {
	once       sync.Once
	connString string
	cluster    *pgcluster.Cluster // nil when EnvURL names the server
	lease      *Lease             // held for the process's life; nil when EnvURL names the server
	err        error
}

// ConnString returns a connection string to a real PostgreSQL with pgvector for tests:
// $CITA_TEST_DATABASE_URL when set, else the private test cluster in SharedClusterDir(),
// started (with fsync off) when it does not run. The extensions vector, unaccent and pg_trgm
// exist in schema public. On failure it calls t.Fatal with the reason and what to do; it never
// skips.
func ConnString(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		shared.connString, shared.err = setup(ctx)
	})
	if shared.err != nil {
		t.Fatalf("testdb: %v", shared.err)
	}
	return shared.connString
}

// setup finds or starts the server and prepares its database; it runs once per test process.
func setup(ctx context.Context) (string, error) {
	connString := os.Getenv(EnvURL)
	if connString == "" {
		dir := SharedClusterDir()
		lease, err := AcquireLease(ctx)
		if err != nil {
			return "", err
		}
		shared.lease = lease // never released: the process's end releases it
		cluster, err := pgcluster.Ensure(ctx, pgcluster.Options{DataDir: dir, Database: testDatabase, Fast: true})
		if err != nil {
			return "", fmt.Errorf("start the private test PostgreSQL in %s: %w\n(or set %s to a PostgreSQL with pgvector)", dir, err, EnvURL)
		}
		connString = cluster.ConnString()
		shared.cluster = cluster
	}
	if err := prepareDatabase(ctx, connString); err != nil {
		source := "the private test cluster"
		if os.Getenv(EnvURL) != "" {
			source = EnvURL
		}
		return "", fmt.Errorf("prepare the test database (%s): %w", source, err)
	}
	return connString, nil
}
