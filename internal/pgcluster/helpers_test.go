package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testBaseDir returns an empty directory for clusters. As root the server runs as another user,
// who must be able to enter the directory and its parents: t.TempDir makes both 0700.
func testBaseDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatalf("open %s to the server user: %v", d, err)
			}
		}
	}
	return dir
}

// testContext returns a context that ends before the test's deadline.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ensureForTest starts a fast cluster in dataDir and stops it when the test ends.
func ensureForTest(t *testing.T, dataDir string) *Cluster {
	t.Helper()
	c, err := Ensure(testContext(t), Options{DataDir: dataDir, Fast: true})
	if err != nil {
		t.Fatalf("Ensure(%s): %v", dataDir, err)
	}
	stopAtCleanup(t, dataDir)
	return c
}

// stopAtCleanup stops whatever server runs on dataDir when the test ends, before its temporary
// directory is removed.
func stopAtCleanup(t *testing.T, dataDir string) {
	t.Helper()
	t.Cleanup(func() {
		if err := StopDataDir(context.Background(), Options{DataDir: dataDir}); err != nil {
			t.Errorf("stop cluster in %s: %v", dataDir, err)
		}
	})
}

// withConn connects with connString, runs fn on the connection and closes it.
func withConn(t *testing.T, connString string, fn func(ctx context.Context, conn *pgx.Conn)) {
	t.Helper()
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatalf("connect %q: %v", connString, err)
	}
	defer conn.Close(ctx)
	fn(ctx, conn)
}

// queryInt connects with connString and returns the integer result of query.
func queryInt(t *testing.T, connString, query string) int {
	t.Helper()
	var n int
	withConn(t, connString, func(ctx context.Context, conn *pgx.Conn) {
		if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	})
	return n
}

// execSQL connects with connString and runs statements.
func execSQL(t *testing.T, connString string, statements ...string) {
	t.Helper()
	withConn(t, connString, func(ctx context.Context, conn *pgx.Conn) {
		for _, s := range statements {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	})
}
