package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// installHint is appended to every "something is not installed" error.
const installHint = "run scripts/install-postgres.sh or set PG_BINDIR to the directory holding initdb, pg_ctl and postgres"

// serverBinaries are the programs Ensure runs.
var serverBinaries = []string{"initdb", "pg_ctl", "postgres"}

// minVectorVersion is the oldest pgvector cita supports (iterative index scans arrived in 0.8).
var minVectorVersion = []int{0, 8, 0}

// findBinDir returns the directory holding the server binaries, or an error that says how to
// install them.
func findBinDir() (string, error) {
	if dir := os.Getenv("PG_BINDIR"); dir != "" {
		return dir, nil
	}
	if pgConfig, err := exec.LookPath("pg_config"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
		if dir := strings.TrimSpace(string(out)); err == nil && hasServerBinaries(dir) {
			return dir, nil
		}
	}
	if dir := newestDebianBinDir(); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("PostgreSQL server binaries not found: %s", installHint)
}

// newestDebianBinDir returns the highest-versioned /usr/lib/postgresql/<major>/bin with server
// binaries, or "" when there is none.
func newestDebianBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(dir string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		return n
	}
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, dir := range dirs {
		if hasServerBinaries(dir) {
			return dir
		}
	}
	return ""
}

func hasServerBinaries(dir string) bool {
	return dir != "" && checkBinaries(dir) == nil
}

// checkBinaries returns an error naming the first server program missing from binDir.
func checkBinaries(binDir string) error {
	for _, name := range serverBinaries {
		path := filepath.Join(binDir, name)
		info, err := os.Stat(path)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return fmt.Errorf("PostgreSQL server binaries not found (%s is missing): %s", path, installHint)
		}
	}
	return nil
}

// serverMajorVersion returns the major version of the postgres binary in binDir ("15").
func serverMajorVersion(ctx context.Context, binDir string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("run %s --version: %w", filepath.Join(binDir, "postgres"), err)
	}
	return parseMajorVersion(string(out))
}

var versionPattern = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?`)

// parseMajorVersion extracts the major version from `postgres --version` output
// ("postgres (PostgreSQL) 15.20 (Debian ...)" gives "15"; 9.6 gives "9.6").
func parseMajorVersion(versionOutput string) (string, error) {
	m := versionPattern.FindStringSubmatch(versionOutput)
	if m == nil {
		return "", fmt.Errorf("unrecognised postgres --version output %q", strings.TrimSpace(versionOutput))
	}
	if n, _ := strconv.Atoi(m[1]); n < 10 && m[2] != "" {
		return m[1] + "." + m[2], nil
	}
	return m[1], nil
}

// shareDir returns the server's share directory (where extension/*.control live).
func shareDir(ctx context.Context, binDir string) (string, error) {
	pgConfig := filepath.Join(binDir, "pg_config")
	if out, err := exec.CommandContext(ctx, pgConfig, "--sharedir").Output(); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	for _, candidate := range []string{
		filepath.Join(binDir, "..", "share", "postgresql"),
		filepath.Join(binDir, "..", "share"),
	} {
		if _, err := os.Stat(filepath.Join(candidate, "extension", "plpgsql.control")); err == nil {
			return filepath.Clean(candidate), nil
		}
	}
	return "", fmt.Errorf("cannot find the PostgreSQL share directory: %s has no working pg_config: %s", binDir, installHint)
}

// checkExtensions returns an error when pgvector (>= 0.8), unaccent or pg_trgm is not installed
// for the server in binDir; the error names the directory searched and the fix.
func checkExtensions(ctx context.Context, binDir, major string) error {
	share, err := shareDir(ctx, binDir)
	if err != nil {
		return err
	}
	extDir := filepath.Join(share, "extension")
	control, err := os.ReadFile(filepath.Join(extDir, "vector.control"))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pgvector is not installed for PostgreSQL %s at %s: run scripts/install-postgres.sh", major, extDir)
	}
	if err != nil {
		return fmt.Errorf("read pgvector control file: %w", err)
	}
	version := controlDefaultVersion(control)
	if !versionAtLeast(version, minVectorVersion) {
		return fmt.Errorf("pgvector %q is installed for PostgreSQL %s at %s but cita needs 0.8 or newer: run scripts/install-postgres.sh", version, major, extDir)
	}
	for _, name := range []string{"unaccent", "pg_trgm"} {
		if _, err := os.Stat(filepath.Join(extDir, name+".control")); err != nil {
			return fmt.Errorf("extension %s (postgresql-contrib) is not installed for PostgreSQL %s at %s: run scripts/install-postgres.sh", name, major, extDir)
		}
	}
	return nil
}

var defaultVersionPattern = regexp.MustCompile(`(?m)^\s*default_version\s*=\s*'([^']*)'`)

// controlDefaultVersion returns default_version from an extension control file, or "".
func controlDefaultVersion(control []byte) string {
	m := defaultVersionPattern.FindSubmatch(control)
	if m == nil {
		return ""
	}
	return string(bytes.TrimSpace(m[1]))
}

// versionAtLeast reports whether a dotted version is >= min; unparsable versions are not.
func versionAtLeast(version string, min []int) bool {
	parts := strings.Split(version, ".")
	for i, want := range min {
		got := 0
		if i < len(parts) {
			n, err := strconv.Atoi(parts[i])
			if err != nil {
				return false
			}
			got = n
		}
		if got != want {
			return got > want
		}
	}
	return true
}
