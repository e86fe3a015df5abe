package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// postmasterPID is what the server writes to DATADIR/postmaster.pid while it runs.
type postmasterPID struct {
	pid       int
	port      int
	socketDir string
	status    string // "starting", "ready", "stopping" (empty on very old servers)
}

// readPostmasterPID parses DATADIR/postmaster.pid. It returns nil and no error when the file does
// not exist (no server), and an error when it cannot be read or parsed.
func readPostmasterPID(dataDir string) (*postmasterPID, error) {
	path := filepath.Join(dataDir, "postmaster.pid")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return parsePostmasterPID(string(data))
}

// parsePostmasterPID parses the text of postmaster.pid: pid, data dir, start time, port, first
// socket directory, listen address, shared memory key, status (see PostgreSQL's pidfile.h).
func parsePostmasterPID(text string) (*postmasterPID, error) {
	lines := strings.Split(text, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || pid <= 0 {
		return nil, fmt.Errorf("parse postmaster.pid: bad pid line %q", lines[0])
	}
	info := &postmasterPID{pid: pid}
	field := func(i int) string {
		if i < len(lines) {
			return strings.TrimSpace(lines[i])
		}
		return ""
	}
	if p := field(3); p != "" {
		if info.port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("parse postmaster.pid: bad port line %q", p)
		}
	}
	info.socketDir = field(4)
	info.status = field(7)
	return info, nil
}

// processAlive reports whether pid is a live PostgreSQL process. A pid that is gone, a zombie
// (a killed server nobody reaped, common in containers without an init), or, where /proc tells,
// a process that is not postgres (the pid was reused after a crash or container restart) is not.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	procDir := filepath.Join("/proc", strconv.Itoa(pid))
	if stat, err := os.ReadFile(filepath.Join(procDir, "stat")); err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			if state := stat[i+2]; state == 'Z' || state == 'X' {
				return false
			}
		}
	}
	if comm, err := os.ReadFile(filepath.Join(procDir, "comm")); err == nil {
		name := strings.TrimSpace(string(comm))
		return name == "postgres" || name == "postmaster"
	}
	return true
}

// Status reports whether a server runs on dataDir ("" means DefaultDataDir()): its
// postmaster.pid exists and names a live postgres process. It returns an error when the pid file
// exists but cannot be read or parsed (for example, another user's data directory).
func Status(ctx context.Context, dataDir string) (running bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if dataDir == "" {
		dataDir = DefaultDataDir()
	}
	info, err := readPostmasterPID(dataDir)
	if err != nil || info == nil {
		return false, err
	}
	return processAlive(info.pid), nil
}

// removeStaleLockFiles removes the postmaster.pid of a dead server and the lock file of its
// socket when that names the same dead pid. Only call it under the data dir lock, after
// processAlive(stale.pid) said false. Should a server still run after all, the new postgres
// refuses to start anyway: it finds the old server's shared memory still attached.
func removeStaleLockFiles(dataDir string, stale *postmasterPID) error {
	if stale.socketDir != "" && stale.port != 0 {
		socketLock := filepath.Join(stale.socketDir, socketFileName(stale.port)+".lock")
		if data, err := os.ReadFile(socketLock); err == nil {
			first, _, _ := strings.Cut(string(data), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && pid == stale.pid {
				if err := os.Remove(socketLock); err != nil {
					return fmt.Errorf("remove stale socket lock file: %w", err)
				}
			}
		}
	}
	if err := os.Remove(filepath.Join(dataDir, "postmaster.pid")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale postmaster.pid: %w", err)
	}
	return nil
}
