package testdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/citahq/cita/internal/pgcluster"
)

// The shared test cluster outlives every test process and is stopped at the end of `make test`.
// Two suites on one machine (two clones, or a developer's `go test` beside `make test`) share
// it, so the one that ends first must not stop it under the other. Every process that uses the
// cluster holds a lease: a shared flock on a file next to the data directory, taken before the
// cluster is started or reused and released by the kernel when the process ends, however it
// ends. Stopping takes the same lock exclusively without waiting: it stops only when nobody
// holds a lease, and holds the lock while it stops, so a process arriving meanwhile waits and
// then starts the cluster again.

// LeasePath returns the lease file of the shared test cluster: SharedClusterDir() + ".lease".
func LeasePath() string { return SharedClusterDir() + ".lease" }

// Lease is one process's hold on the shared test cluster; see AcquireLease.
type Lease struct{ f *os.File }

// AcquireLease takes a shared lease on the shared test cluster, waiting while a stop holds it
// (until ctx ends). While any process holds a lease, StopSharedCluster leaves the cluster
// running. It returns an error when the lease file cannot be opened or locked.
func AcquireLease(ctx context.Context) (*Lease, error) { return acquireLease(ctx, LeasePath()) }

func acquireLease(ctx context.Context, path string) (*Lease, error) {
	f, err := pgcluster.LockFile(ctx, path, true)
	if err != nil {
		return nil, fmt.Errorf("lease the test cluster (waiting while it stops): %w", err)
	}
	return &Lease{f: f}, nil
}

// Release gives the lease back. A process that ends releases its leases too.
func (l *Lease) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}

// StopResult says what StopSharedCluster did.
type StopResult int

const (
	// Stopped: the cluster ran, nobody held a lease, and it was stopped.
	Stopped StopResult = iota
	// NotRunning: no cluster ran in SharedClusterDir().
	NotRunning
	// InUse: another process holds a lease; the cluster was left running for it.
	InUse
)

// StopSharedCluster stops the shared test cluster unless another process holds a lease on it
// (the caller must have released its own). It returns an error when the lease file cannot be
// locked or the server cannot be stopped.
func StopSharedCluster(ctx context.Context) (StopResult, error) {
	return stopLeased(ctx, LeasePath(), SharedClusterDir())
}

// stopLeased stops the cluster in dir unless a lease on path is held.
func stopLeased(ctx context.Context, path, dir string) (StopResult, error) {
	f, err := openLeaseFile(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return InUse, nil
		}
		return 0, fmt.Errorf("lock the test cluster's lease (%s): %w", f.Name(), err)
	}
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	running, err := pgcluster.Status(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("check test cluster in %s: %w", dir, err)
	}
	if !running {
		return NotRunning, nil
	}
	if err := pgcluster.StopDataDir(ctx, pgcluster.Options{DataDir: dir}); err != nil {
		return 0, err
	}
	return Stopped, nil
}

// openLeaseFile opens (creating) the lease file at path and its parent directory.
func openLeaseFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the test cluster's lease %s: %w", path, err)
	}
	return f, nil
}
