package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/term"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/rag/pgstore"
)

// probeTimeout bounds one readiness check.
const probeTimeout = 3 * time.Second

// readiness answers /readyz: ready while the database answers and its schema is at (or past)
// the newest migration this binary embeds, and not while the server drains for shutdown.
type readiness struct {
	pool     *pgxpool.Pool
	draining atomic.Bool
}

// check returns why the server is not ready, or nil.
func (r *readiness) check(ctx context.Context) error {
	if r.draining.Load() {
		return fmt.Errorf("shutting down")
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := r.pool.Ping(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	current, target, err := pgstore.SchemaVersion(ctx, r.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	// A newer schema is fine: during a rolling upgrade the new replicas migrate first and the old
	// ones keep serving (migrations only add).
	if current < target {
		return fmt.Errorf("schema at migration %d, this binary needs %d: run `cita migrate` (or start one replica of this version, which migrates)", current, target)
	}
	return nil
}

// serveRoutes mounts /healthz (the process is up), /readyz (see readiness) and /metrics on mux.
func serveRoutes(mux *http.ServeMux, ready *readiness, m *metrics.Metrics, logger *slog.Logger) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready.check(r.Context()); err != nil {
			logger.WarnContext(r.Context(), "not ready", slog.String("reason", err.Error()))
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", m.Handler())
}

// serveLogger returns the logger of `cita serve`: JSON or text as configured (JSON when w is
// not a terminal and no format is set), at the configured level, or debug with -v.
func serveLogger(lc config.LogConfig, w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	switch strings.ToLower(lc.Level) {
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	format := lc.Format
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
