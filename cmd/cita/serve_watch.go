package main

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/config"
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
