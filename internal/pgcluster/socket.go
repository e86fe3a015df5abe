package pgcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// socketPathBudget is the longest socket path we place inside a data directory: the kernel
// accepts 107 bytes (sun_path is 108 with its terminating NUL); we keep a small margin.
const socketPathBudget = 100

// shortSocketParent holds socket directories for data directories whose path is too long.
const shortSocketParent = "/tmp"

// socketFileName is the name PostgreSQL gives its Unix socket for port.
func socketFileName(port int) string {
	return ".s.PGSQL." + strconv.Itoa(port)
}

// socketDirFor returns where the server for dataDir puts its Unix socket: the data directory
// itself when the socket path fits, else a short directory under /tmp named from a hash of the
// data directory, so each data directory keeps its own socket.
func socketDirFor(dataDir string, port int) string {
	if len(filepath.Join(dataDir, socketFileName(port))) <= socketPathBudget {
		return dataDir
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(shortSocketParent, "cita-pg-"+hex.EncodeToString(sum[:8]))
}

// ensureSocketDir creates a short socket directory for the server user (mode 0700), or checks
// that an existing one is a real directory that belongs to that user and that nobody else can
// write to, since /tmp is shared. The data directory needs nothing: initdb made it.
func ensureSocketDir(dir, dataDir string, u *serverUser) error {
	if dir == dataDir {
		return nil
	}
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		return u.chown(dir)
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create socket dir %s: %w", dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check socket dir %s: %w", dir, err)
	}
	wantUID := uint32(os.Geteuid())
	if u != nil {
		wantUID = u.uid
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !info.IsDir() || !ok || st.Uid != wantUID || info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket dir %s exists but is not a private directory of %s: remove it and retry", dir, u)
	}
	return nil
}
