// Package pgcluster runs a private PostgreSQL cluster for cita: the one cita starts when no
// DATABASE_URL is given, and the one tests share. It initialises the data directory when needed,
// starts the server on a Unix socket only, reuses a server that already runs, and creates the
// application database. It does not create extensions or run migrations.
package pgcluster

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// DefaultPort is the port the private server uses. The server listens on a Unix socket only, so
// the port merely names the socket file (.s.PGSQL.5433).
const DefaultPort = 5433

// DefaultDatabase is the database Ensure creates when Options.Database is empty.
const DefaultDatabase = "cita"

// Options configures Ensure. The zero value is usable.
type Options struct {
	// DataDir is the PostgreSQL data directory; "" means DefaultDataDir().
	DataDir string
	// BinDir holds initdb, pg_ctl and postgres; "" means autodetect: $PG_BINDIR, then
	// `pg_config --bindir` for the pg_config on PATH, then the newest /usr/lib/postgresql/*/bin.
	BinDir string
	// Database is created when missing; "" means DefaultDatabase.
	Database string
	// Port names the socket file; 0 means DefaultPort.
	Port int
	// Fast trades durability for speed (fsync, synchronous_commit and full_page_writes off).
	// Use it for tests and benchmarks only: a crash can corrupt the cluster.
	Fast bool
	// Logger receives progress messages; nil discards them.
	Logger *slog.Logger
}

// DefaultDataDir returns where cita keeps its private cluster: $CITA_DATA_DIR when set, else
// /var/lib/cita/postgres when running as root (root's home is not readable by the server user),
// else $XDG_DATA_HOME/cita/postgres, else ~/.local/share/cita/postgres. When no home directory
// can be found it falls back to a per-user directory under os.TempDir().
func DefaultDataDir() string {
	if dir := os.Getenv("CITA_DATA_DIR"); dir != "" {
		return dir
	}
	if os.Geteuid() == 0 {
		return "/var/lib/cita/postgres"
	}
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		return filepath.Join(xdg, "cita", "postgres")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "share", "cita", "postgres")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("cita-%d", os.Getuid()), "postgres")
}

// resolved is Options with every default filled in and every path absolute.
type resolved struct {
	dataDir  string
	binDir   string
	database string
	port     int
	fast     bool
	logger   *slog.Logger
	user     *serverUser
	locales  []string // initdb locales to try; nil means initdbLocales
}

// resolve fills in defaults, finds the binaries and decides which user runs the server.
func resolve(opts Options) (*resolved, error) {
	r := &resolved{
		dataDir:  opts.DataDir,
		binDir:   opts.BinDir,
		database: opts.Database,
		port:     opts.Port,
		fast:     opts.Fast,
		logger:   opts.Logger,
	}
	if r.dataDir == "" {
		r.dataDir = DefaultDataDir()
	}
	abs, err := filepath.Abs(r.dataDir)
	if err != nil {
		return nil, fmt.Errorf("resolve data dir %q: %w", r.dataDir, err)
	}
	r.dataDir = abs
	if r.database == "" {
		r.database = DefaultDatabase
	}
	if r.port == 0 {
		r.port = DefaultPort
	}
	if r.port < 1 || r.port > 65535 {
		return nil, fmt.Errorf("port %d is out of range: use 1-65535 or 0 for %d", r.port, DefaultPort)
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	if r.binDir == "" {
		if r.binDir, err = findBinDir(); err != nil {
			return nil, err
		}
	}
	if err := checkBinaries(r.binDir); err != nil {
		return nil, err
	}
	if r.user, err = lookupServerUser(); err != nil {
		return nil, err
	}
	return r, nil
}
