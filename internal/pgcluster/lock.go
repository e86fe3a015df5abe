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
	path := lockPath(dataDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of data dir %s: %w", dataDir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("wait for lock %s (another cita process is starting this cluster): %w", path, ctx.Err())
		case <-time.After(lockPollInterval):
		}
	}
}
