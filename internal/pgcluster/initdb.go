package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// Locales tried for initdb, best first: C.UTF-8 sorts bytewise (fast, stable) yet classifies
// non-ASCII letters, which full-text search needs; plain C is everywhere.
var initdbLocales = []string{"C.UTF-8", "C"}

// includeLine is appended to postgresql.conf so the settings in settingsFile apply, while
// ALTER SYSTEM (postgresql.auto.conf, read later) can still override them.
const includeLine = "\n# Added by cita: settings cita manages, rewritten at every start.\ninclude_if_exists = '" + settingsFile + "'\n"

// initialise creates the cluster in r.dataDir unless it exists, and reports whether it did. It
// runs initdb in a sibling temporary directory and renames it into place, so an interrupted
// initdb never leaves a half-made cluster behind. The caller holds the data dir lock.
func (r *resolved) initialise(ctx context.Context, major string) (bool, error) {
	version, err := os.ReadFile(filepath.Join(r.dataDir, "PG_VERSION"))
	if err == nil {
		if got := strings.TrimSpace(string(version)); got != major {
			return false, fmt.Errorf("data dir %s was created by PostgreSQL %s but the binaries in %s are version %s: set PG_BINDIR to PostgreSQL %s binaries, or move the data dir away to start afresh", r.dataDir, got, r.binDir, major, got)
		}
		return false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("check data dir %s: %w", r.dataDir, err)
	}
	if entries, err := os.ReadDir(r.dataDir); err == nil && len(entries) > 0 {
		return false, fmt.Errorf("data dir %s exists but holds no PostgreSQL cluster: empty or remove it, or choose another data dir", r.dataDir)
	}

	r.logger.InfoContext(ctx, "initialising PostgreSQL cluster",
		slog.String("data_dir", r.dataDir), slog.String("server_user", r.user.String()))
	tmp := r.dataDir + ".initdb"
	if err := r.initdbInto(ctx, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return false, err
	}
	_ = os.Remove(r.dataDir) // an empty directory left by the user or an earlier attempt
	if err := os.Rename(tmp, r.dataDir); err != nil {
		return false, fmt.Errorf("move new cluster into %s: %w", r.dataDir, err)
	}
	return true, nil
}

// initdbInto runs initdb into dir (recreated empty), trying each locale in turn, then adds the
// include line and the log directory.
func (r *resolved) initdbInto(ctx context.Context, dir string) error {
	var lastErr error
	locales := r.locales
	if len(locales) == 0 {
		locales = initdbLocales
	}
	for _, locale := range locales {
		if err := r.makeEmptyServerDir(dir); err != nil {
			return err
		}
		args := []string{"-D", dir, "--auth=trust", "-U", "postgres", "--encoding=UTF8",
			"--locale=" + locale, "--no-instructions"}
		if r.fast {
			args = append(args, "--no-sync")
		}
		_, lastErr = r.run(ctx, "initdb", args...)
		if lastErr == nil {
			break
		}
		if !strings.Contains(lastErr.Error(), "locale") || ctx.Err() != nil {
			return fmt.Errorf("initialise cluster: %w", lastErr)
		}
		r.logger.WarnContext(ctx, "initdb locale unavailable, trying the next",
			slog.String("locale", locale), slog.Any("error", lastErr))
	}
	if lastErr != nil {
		return fmt.Errorf("initialise cluster: %w", lastErr)
	}
	if err := appendFile(filepath.Join(dir, "postgresql.conf"), includeLine); err != nil {
		return err
	}
	logDir := filepath.Join(dir, "log")
	if err := os.Mkdir(logDir, 0o700); err != nil {
		return fmt.Errorf("create log dir: %w", err)
	}
	return r.user.chown(logDir)
}

// makeEmptyServerDir (re)creates dir with mode 0700 owned by the server user.
func (r *resolved) makeEmptyServerDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return r.user.chown(dir)
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
