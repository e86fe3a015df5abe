package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockPollInterval is how often a waiting Ensure retries the data dir lock.
const lockPollInterval = 50 * time.Millisecond

// lockPath returns the lock file that serialises Ensure and Stop on dataDir. It sits next to the
// data directory (PostgreSQL wants the data directory itself to hold only its own files).
func lockPath(dataDir string) string {
	return dataDir + ".lock"
}

// lockDataDir takes an exclusive flock on dataDir's lock file, creating the parent directory when
// needed, and returns the function that releases it. It waits until the lock is free or ctx ends.
func lockDataDir(ctx context.Context, dataDir string) (unlock func(), err error) {
	f, err := LockFile(ctx, lockPath(dataDir), false)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (another cita process is starting this cluster)", err)
		}
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// LockFile takes an flock on path, shared or exclusive, creating the file and its parent
// directory when needed, and waits until it is granted or ctx ends. The lock is held while the
// returned file stays open (and released by the kernel when the process ends). It returns an
// error naming path when the file cannot be opened or locked, or when ctx ends first.
func LockFile(ctx context.Context, path string, shared bool) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("wait for lock %s: %w", path, ctx.Err())
		case <-time.After(lockPollInterval):
		}
	}
}
