package pgcluster

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// startTimeout bounds how long pg_ctl waits for the server to accept connections (crash
// recovery after a kill can take a while on a large cluster).
const startTimeout = 120 * time.Second

// Cluster is a running private PostgreSQL server and the database cita uses in it.
type Cluster struct {
	dataDir   string
	binDir    string
	socketDir string
	port      int
	database  string
	pid       int
	user      *serverUser
	logger    *slog.Logger
	fast      bool // started with Options.Fast (a standby must match the primary's settings)

	initialised bool // this Ensure ran initdb
	started     bool // this Ensure started the server (false: it was running already)
}

// Ensure makes sure a server runs on opts.DataDir and that opts.Database exists in it: it runs
// initdb when the data directory is new, starts the server unless it already runs (a stale
// postmaster.pid left by a killed server is cleared), waits until it accepts connections and
// creates the database when missing. Concurrent calls, from this or other processes, are
// serialised by a file lock next to the data directory. It returns an error saying what to do
// when the binaries or extensions are missing, the data directory is unusable, or the server
// does not start (the error quotes the end of the server log).
func Ensure(ctx context.Context, opts Options) (*Cluster, error) {
	r, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	major, err := serverMajorVersion(ctx, r.binDir)
	if err != nil {
		return nil, err
	}
	if err := checkExtensions(ctx, r.binDir, major); err != nil {
		return nil, err
	}
	if err := r.user.checkTraversable(r.dataDir); err != nil {
		return nil, err
	}
	unlock, err := lockDataDir(ctx, r.dataDir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	initialised, err := r.initialise(ctx, major)
	if err != nil {
		return nil, err
	}
	pidInfo, started, err := r.start(ctx)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		dataDir:     r.dataDir,
		binDir:      r.binDir,
		socketDir:   pidInfo.socketDir,
		port:        pidInfo.port,
		database:    r.database,
		pid:         pidInfo.pid,
		user:        r.user,
		logger:      r.logger,
		fast:        r.fast,
		initialised: initialised,
		started:     started,
	}
	if err := createDatabase(ctx, c.connString("postgres"), r.database); err != nil {
		return nil, err
	}
	return c, nil
}

// ConnString returns a keyword/value connection string for pgx (and libpq) that reaches the
// database over the server's Unix socket as the superuser postgres.
func (c *Cluster) ConnString() string {
	return c.connString(c.database)
}

func (c *Cluster) connString(database string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable",
		quoteConnValue(c.socketDir), c.port, quoteConnValue(database))
}

// DataDir returns the cluster's data directory (absolute).
func (c *Cluster) DataDir() string { return c.dataDir }

// Stop shuts the server down (pg_ctl stop -m fast: open sessions are disconnected) and waits
// until it has exited. It returns nil when the server was not running, and an error with
// pg_ctl's output when it cannot stop it.
func (c *Cluster) Stop(ctx context.Context) error {
	return StopDataDir(ctx, Options{DataDir: c.dataDir, BinDir: c.binDir, Logger: c.logger})
}

// StopDataDir stops the server running on opts.DataDir ("" means DefaultDataDir()), if any, as
// Cluster.Stop does, without starting anything first. It returns nil when no server runs.
func StopDataDir(ctx context.Context, opts Options) error {
	r, err := resolve(opts)
	if err != nil {
		return err
	}
	unlock, err := lockDataDir(ctx, r.dataDir)
	if err != nil {
		return err
	}
	defer unlock()
	running, err := Status(ctx, r.dataDir)
	if err != nil || !running {
		return err
	}
	if _, err := r.run(ctx, "pg_ctl", "stop", "-D", r.dataDir, "-m", "fast", "-w",
		"-t", strconv.Itoa(int(startTimeout.Seconds()))); err != nil {
		return fmt.Errorf("stop PostgreSQL in %s: %w", r.dataDir, err)
	}
	r.logger.InfoContext(ctx, "stopped PostgreSQL", slog.String("data_dir", r.dataDir))
	return nil
}

// start starts the server unless it runs, and returns its postmaster.pid and whether it started
// it. The caller holds the data dir lock.
func (r *resolved) start(ctx context.Context) (*postmasterPID, bool, error) {
	info, err := readPostmasterPID(r.dataDir)
	if err != nil {
		return nil, false, err
	}
	if info != nil && processAlive(info.pid) {
		info, err = r.waitReady(ctx, info)
		if err != nil {
			return nil, false, err
		}
		r.logger.InfoContext(ctx, "reusing running PostgreSQL", slog.String("data_dir", r.dataDir),
			slog.Int("pid", info.pid))
		return info, false, nil
	}
	if info != nil {
		// The server is gone, or its pid now belongs to a zombie or to another program (after
		// a kill or a container restart): postgres itself would refuse to start over it.
		if err := removeStaleLockFiles(r.dataDir, info); err != nil {
			return nil, false, err
		}
	}
	socketDir := socketDirFor(r.dataDir, r.port)
	if err := ensureSocketDir(socketDir, r.dataDir, r.user); err != nil {
		return nil, false, err
	}
	if err := r.writeSettings(); err != nil {
		return nil, false, err
	}
	logFile := filepath.Join(r.dataDir, "log", "server.log")
	serverOptions := fmt.Sprintf("-k %s -p %d -c listen_addresses=''", shellQuote(socketDir), r.port)
	if _, err := r.run(ctx, "pg_ctl", "start", "-D", r.dataDir, "-l", logFile, "-w",
		"-t", strconv.Itoa(int(startTimeout.Seconds())), "-o", serverOptions); err != nil {
		return nil, false, fmt.Errorf("start PostgreSQL (log %s): %w\nlast log lines:\n%s", logFile, err, tailFile(logFile, 15))
	}
	info, err = readPostmasterPID(r.dataDir)
	if err != nil || info == nil {
		return nil, false, fmt.Errorf("PostgreSQL started but postmaster.pid is unreadable (see %s): %v", logFile, err)
	}
	r.logger.InfoContext(ctx, "started PostgreSQL", slog.String("data_dir", r.dataDir),
		slog.String("socket_dir", info.socketDir), slog.Int("pid", info.pid))
	return info, true, nil
}

// waitReady waits until a running server (started by someone who did not take our lock, or
// still in crash recovery) reports "ready" in postmaster.pid.
func (r *resolved) waitReady(ctx context.Context, info *postmasterPID) (*postmasterPID, error) {
	deadline := time.Now().Add(startTimeout)
	for info.status != "ready" && info.status != "" {
		if !processAlive(info.pid) || time.Now().After(deadline) {
			return nil, fmt.Errorf("PostgreSQL (pid %d) in %s is %q and not ready: see %s", info.pid, r.dataDir, info.status, filepath.Join(r.dataDir, "log"))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for PostgreSQL to be ready: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		next, err := readPostmasterPID(r.dataDir)
		if err != nil {
			return nil, err
		}
		if next == nil {
			return nil, fmt.Errorf("PostgreSQL (pid %d) in %s stopped while we waited for it", info.pid, r.dataDir)
		}
		info = next
	}
	return info, nil
}

// quoteConnValue quotes a keyword/value connection string value when it needs it.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
