package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// StandbyOptions configures CreateStandby.
type StandbyOptions struct {
	// DataDir is the standby's data directory; it must not exist or be empty.
	DataDir string
	// Port names the standby's socket file; 0 means the primary's port + 1.
	Port int
}

// CreateStandby makes a streaming hot standby of c and starts it: pg_basebackup -R copies c
// into opts.DataDir (streaming the WAL written meanwhile, and writing standby.signal and
// primary_conninfo, which points at c's socket), then the standby starts on its own socket and
// port with c's settings, replaying c's WAL as it arrives. No replication slot is made, so a
// stopped standby holds no WAL back on c. It returns the standby as a Cluster: ConnString
// reaches the same database, read-only, and Stop stops it. It returns an error quoting
// pg_basebackup's output, or the standby's log, when the copy or the start fails.
func (c *Cluster) CreateStandby(ctx context.Context, opts StandbyOptions) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("create standby: StandbyOptions.DataDir is required")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("create standby: resolve data dir %q: %w", opts.DataDir, err)
	}
	port := opts.Port
	if port == 0 {
		port = c.port + 1
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("create standby: port %d is out of range: use 1-65535 or 0 for the primary's + 1", port)
	}
	r := &resolved{dataDir: dataDir, binDir: c.binDir, database: c.database, port: port, fast: c.fast,
		logger: c.logger, user: c.user}
	if err := r.user.checkTraversable(r.dataDir); err != nil {
		return nil, err
	}
	unlock, err := lockDataDir(ctx, r.dataDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if entries, err := os.ReadDir(r.dataDir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("create standby: data dir %s is not empty: remove it or choose another", r.dataDir)
	}
	if err := r.makeEmptyServerDir(r.dataDir); err != nil {
		return nil, err
	}
	r.logger.InfoContext(ctx, "copying PostgreSQL for a standby", slog.String("primary", c.dataDir), slog.String("data_dir", r.dataDir))
	if _, err := r.run(ctx, "pg_basebackup", "-D", r.dataDir, "-R", "-X", "stream", "-c", "fast",
		"-h", c.socketDir, "-p", fmt.Sprint(c.port), "-U", "postgres", "--no-sync"); err != nil {
		return nil, fmt.Errorf("create standby of %s: %w", c.dataDir, err)
	}
	// The copy holds the primary's server log; the standby starts its own.
	_ = os.Truncate(filepath.Join(r.dataDir, "log", "server.log"), 0)
	info, _, err := r.start(ctx)
	if err != nil {
		return nil, fmt.Errorf("start standby: %w", err)
	}
	return &Cluster{dataDir: r.dataDir, binDir: r.binDir, socketDir: info.socketDir, port: info.port, database: r.database,
		pid: info.pid, user: r.user, logger: r.logger, fast: r.fast, started: true}, nil
}
