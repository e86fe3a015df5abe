package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/push"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/watch"
)

// watchFolders starts a watcher for every folder source with watch: true. Each burst of changes
// is recorded as pending (cita sources, /metrics) and triggers a pass of its source; the cron
// schedule stays the safety net. A watcher that cannot start is logged, not fatal: the source
// still syncs on its schedule.
func watchFolders(ctx context.Context, g *errgroup.Group, sources []config.SourceConfig, sched *scheduler.Scheduler,
	history *syncrun.History, logger *slog.Logger) {
	for _, src := range sources {
		if src.Type != "folder" || !src.Folder.Watch {
			continue
		}
		name := src.Name
		onChange := func(ctx context.Context, firstAt time.Time, events int) {
			if err := history.NotePending(ctx, name, events, firstAt); err != nil {
				logger.WarnContext(ctx, "record pending changes", slog.String("source", name), slog.String("error", err.Error()))
			}
			if err := sched.Trigger(name, firstAt); err != nil {
				logger.ErrorContext(ctx, "trigger sync", slog.String("source", name), slog.String("error", err.Error()))
			}
		}
		w := watch.NewFolder(src.Folder.Path, src.Folder.WatchDebounce, onChange, logger.With(slog.String("source", name)))
		g.Go(func() error {
			if err := w.Run(ctx); err != nil {
				logger.ErrorContext(ctx, "folder watch stopped; the source syncs on its schedule only",
					slog.String("source", name), slog.String("error", err.Error()))
			}
			return nil
		})
	}
}

// drivePush registers push channels for every Drive source with push.address, renews them, and
// mounts POST /hooks/gdrive, where a verified notification triggers an incremental pass.
func drivePush(ctx context.Context, g *errgroup.Group, mux *http.ServeMux, sources []config.SourceConfig, conns map[string]syncrun.Source,
	pool *pgxpool.Pool, sched *scheduler.Scheduler, history *syncrun.History, logger *slog.Logger) {
	channels := push.NewChannels(pool)
	mounted := false
	for _, src := range sources {
		if src.Type != "gdrive" || src.GDrive.Push.Address == "" {
			continue
		}
		w, ok := conns[src.Name].Connector.(push.Watcher)
		if !ok {
			continue
		}
		r := &push.Renewer{Source: src.Name, Address: src.GDrive.Push.Address, Drive: w, Channels: channels,
			TTL: src.GDrive.Push.TTL, RenewBefore: src.GDrive.Push.RenewBefore, Logger: logger}
		g.Go(func() error { r.Run(ctx); return nil })
		mounted = true
	}
	if !mounted {
		return
	}
	mux.Handle("POST "+push.Path, push.Handler(channels, func(ctx context.Context, source string, at time.Time) {
		if err := history.NotePending(ctx, source, 1, at); err != nil {
			logger.WarnContext(ctx, "record pending changes", slog.String("source", source), slog.String("error", err.Error()))
		}
		if err := sched.Trigger(source, at); err != nil {
			logger.ErrorContext(ctx, "trigger sync", slog.String("source", source), slog.String("error", err.Error()))
		}
	}, logger))
}
