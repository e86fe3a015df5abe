package main

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/internal/metrics"
)

// startSweeps runs the reconciliation sweep of each enabled chat adapter (named "slack",
// "discord" in the database and the metrics) every interval on g, one replica at a time. An
// interval of 0 (sweep.interval: off) runs none. It returns an error only for a bad interval.
func startSweeps(ctx context.Context, g *errgroup.Group, every time.Duration, store *pgbot.Store, m *metrics.Metrics,
	targets map[string]bot.ChannelSweep, logger *slog.Logger) error {
	if every == 0 {
		logger.WarnContext(ctx, "reconciliation sweep is off (sweep.interval): a lost membership event leaves answers visible until the channel's next question")
		return nil
	}
	var names []string
	for name, target := range targets {
		s, err := bot.NewSweeper(store, name, target, bot.SweeperOptions{Every: every, Observer: m, Logger: logger})
		if err != nil {
			return err
		}
		names = append(names, name)
		g.Go(func() error { s.Run(ctx); return nil })
	}
	if len(names) > 0 {
		m.WatchSweeps(store, names)
		logger.InfoContext(ctx, "reconciliation sweep on", slog.Duration("interval", every), slog.Any("sweeps", names))
	}
	return nil
}
