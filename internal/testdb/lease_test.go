package testdb

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/citahq/cita/internal/pgcluster"
)

// TestStopLeavesTheClusterToALeaseHolder is the shared cluster as two suites see it: this
// process uses the cluster (ConnString holds its lease), and another suite ending beside it
// asks to stop it. The cluster stays up and keeps answering.
func TestStopLeavesTheClusterToALeaseHolder(t *testing.T) {
	t.Parallel()
	if os.Getenv(EnvURL) != "" {
		t.Skipf("%s names the server: there is no shared cluster to lease", EnvURL) // not a database skip: the test is about the private cluster
	}
	conn := connect(t, ConnString(t))
	ctx := context.Background()
	res, err := StopSharedCluster(ctx)
	if err != nil || res != InUse {
		t.Fatalf("stop while this process holds a lease: %v, %v; want InUse", res, err)
	}
	if running, err := pgcluster.Status(ctx, SharedClusterDir()); err != nil || !running {
		t.Fatalf("the cluster is not running after a refused stop: %v, %v", running, err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the cluster stopped answering: %v", err)
	}
}

// TestLeasesShareAndAStopWaitsForNone: leases coexist, a stop is refused while one is held and
// goes ahead once all are released, and a lease asked for during a stop waits for it.
func TestLeasesShareAndAStopWaitsForNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path, dataDir := filepath.Join(dir, "pg.lease"), filepath.Join(dir, "pg") // no server runs in dataDir
	a, err := acquireLease(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := acquireLease(ctx, path)
	if err != nil {
		t.Fatalf("a second suite's lease beside the first: %v", err)
	}
	for _, held := range []*Lease{a, b} {
		if res, err := stopLeased(ctx, path, dataDir); err != nil || res != InUse {
			t.Fatalf("stop with a lease held: %v, %v; want InUse", res, err)
		}
		held.Release()
	}
	if res, err := stopLeased(ctx, path, dataDir); err != nil || res != NotRunning {
		t.Fatalf("stop with no lease held: %v, %v; want NotRunning (it went on to the server)", res, err)
	}

	// A stop in progress holds the lease file exclusively: a new lease waits for it.
	stopping, err := openLeaseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer stopping.Close()
	if err := syscall.Flock(int(stopping.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if l, err := acquireLease(short, path); err == nil {
		l.Release()
		t.Fatal("a lease was granted while the cluster was being stopped")
	}
	got := make(chan error, 1)
	go func() {
		l, err := acquireLease(ctx, path)
		l.Release()
		got <- err
	}()
	if err := syscall.Flock(int(stopping.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("lease after the stop: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the lease still waits a minute after the stop ended")
	}
}
