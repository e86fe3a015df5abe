package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag/pgstore"
)

// housekeepingEvery is how often `cita serve` prunes; every replica does, and the statements are
// idempotent.
const housekeepingEvery = time.Hour

// housekeeping is what `cita serve` prunes: event ids, answer records past their retention or
// whose documents were deleted or narrowed, and stale answer-cache entries.
type housekeeping struct {
	store     *pgbot.Store
	cache     *pgstore.Cache // nil when the cache is off
	retention time.Duration
	logger    *slog.Logger
}

// run prunes at once and then every housekeepingEvery until ctx ends. Errors are logged: the next
// pass tries again.
func (h housekeeping) run(ctx context.Context) {
	tick := time.NewTicker(housekeepingEvery)
	defer tick.Stop()
	for {
		h.once(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// once runs one pass.
func (h housekeeping) once(ctx context.Context) {
	// Slack retries within the hour: event ids older than a day are never needed.
	if _, err := h.store.PruneEvents(ctx, time.Now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
		h.logger.WarnContext(ctx, "prune chat event ids", slog.Any("error", err))
	}
	rep, err := h.store.Prune(ctx, time.Now().Add(-h.retention))
	switch {
	case err != nil && ctx.Err() == nil:
		h.logger.ErrorContext(ctx, "prune answer records", slog.Any("error", err))
	case rep.Expired+rep.Redacted > 0:
		h.logger.InfoContext(ctx, "pruned answer records", slog.Int64("expired", rep.Expired), slog.Int64("redacted", rep.Redacted),
			slog.Duration("retention", h.retention))
	}
	if h.cache != nil {
		if n, err := h.cache.Prune(ctx); err != nil && ctx.Err() == nil {
			h.logger.WarnContext(ctx, "prune answer cache", slog.Any("error", err))
		} else if n > 0 {
			h.logger.DebugContext(ctx, "pruned answer cache", slog.Int64("entries", n))
		}
	}
}
