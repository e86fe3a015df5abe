package pgcluster

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// serverUser is the unprivileged account that runs initdb, pg_ctl and postgres when this process
// runs as root (PostgreSQL refuses to run as root). A nil *serverUser means "run as ourselves".
type serverUser struct {
	name string
	uid  uint32
	gid  uint32
}

// serverUserCandidates are tried in order when running as root.
var serverUserCandidates = []string{"postgres", "nobody"}

// lookupServerUser returns nil when not root, else the first existing candidate account.
func lookupServerUser() (*serverUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range serverUserCandidates {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, errUID := strconv.ParseUint(u.Uid, 10, 32)
		gid, errGID := strconv.ParseUint(u.Gid, 10, 32)
		if errUID != nil || errGID != nil || uid == 0 {
			continue
		}
		return &serverUser{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("running as root but neither user %q nor %q exists: create a postgres user (adduser --system postgres) or run cita as a non-root user", serverUserCandidates[0], serverUserCandidates[1])
}

// String returns the account name, or "current user" for nil.
func (u *serverUser) String() string {
	if u == nil {
		return "current user"
	}
	return u.name
}

// apply makes cmd run as the server user, in its own session (so a Ctrl-C sent to our terminal's
// process group does not reach a server we leave running), from a directory it can read.
func (u *serverUser) apply(cmd *exec.Cmd) {
	attr := &syscall.SysProcAttr{Setsid: true}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	cmd.Dir = "/"
}

// chown gives path to the server user; a no-op for nil.
func (u *serverUser) chown(path string) error {
	if u == nil {
		return nil
	}
	if err := os.Lchown(path, int(u.uid), int(u.gid)); err != nil {
		return fmt.Errorf("give %s to user %s: %w", path, u.name, err)
	}
	return nil
}

// chownTree gives every file under root to the server user; a no-op for nil.
func (u *serverUser) chownTree(root string) error {
	if u == nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return u.chown(path)
	})
}

// checkTraversable returns an error when the server user cannot reach dir because one of its
// existing ancestors lacks search permission for that user (root's 0700 home, or a 0700
// t.TempDir parent). A no-op for nil, since we can reach our own paths.
func (u *serverUser) checkTraversable(dir string) error {
	if u == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err == nil {
			if !u.canSearch(info) {
				return fmt.Errorf("user %s, which runs PostgreSQL because this process is root, cannot enter %s (mode %v): choose a data dir under /var/lib (the default as root) or make every parent directory searchable (chmod o+x)", u.name, p, info.Mode().Perm())
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (u *serverUser) canSearch(info fs.FileInfo) bool {
	perm := info.Mode().Perm()
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o001 != 0
	}
	switch {
	case st.Uid == u.uid:
		return perm&0o100 != 0
	case st.Gid == u.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
