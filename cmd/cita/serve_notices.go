package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
)

// noticeEvery is how often `cita serve` looks for source-change notices owed after passes it did
// not run itself (`cita sync` from cron, another replica whose notifier failed).
const noticeEvery = time.Minute

// noticeRunner runs a sync pass, then posts the source-change notices the pass made owed, so a
// thread hears of a change within the pass that made it.
type noticeRunner struct {
	next     scheduler.Runner
	notifier *bot.Notifier // nil: notices are off
	// gaps, when set, asks the open gap questions again after a pass that added or changed
	// documents (followGaps); nil: follow-through is off.
	gaps   func(ctx context.Context, since time.Time)
	logger *slog.Logger
}

// Run implements scheduler.Runner.
func (r *noticeRunner) Run(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error) {
	start := time.Now()
	res, err := r.next.Run(ctx, src, ro)
	if r.notifier != nil && len(res.Changes) > 0 {
		notify(ctx, r.notifier, r.logger)
	}
	if r.gaps != nil && !ro.DryRun && res.Run.Added+res.Run.Changed+res.Run.ACLOnly > 0 {
		r.gaps(ctx, start)
	}
	return res, err
}

// notify posts the notices owed and logs a failure to claim them.
func notify(ctx context.Context, n *bot.Notifier, logger *slog.Logger) {
	if _, err := n.Notify(ctx); err != nil && ctx.Err() == nil {
		logger.ErrorContext(ctx, "source-change notices", slog.String("error", err.Error()))
	}
}

// runNotices posts the notices owed every noticeEvery until ctx ends.
func runNotices(ctx context.Context, n *bot.Notifier, logger *slog.Logger) {
	t := time.NewTicker(noticeEvery)
	defer t.Stop()
	for {
		notify(ctx, n, logger)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sourceNotifier returns the notifier posting through the adapters that run with notices on
// (slack.source_notices, discord.source_notices; both default on), or nil when none does.
func sourceNotifier(store bot.NoticeStore, sc config.SlackConfig, slack *slackbot.Adapter, dc config.DiscordConfig, dsc *discord.Adapter, logger *slog.Logger) *bot.Notifier {
	posters := map[string]bot.NoticePoster{}
	if slack != nil && sc.NoticesOn() {
		posters["slack"] = slack
	}
	if dsc != nil && dc.NoticesOn() {
		posters["discord"] = dsc
	}
	if len(posters) == 0 {
		return nil
	}
	return bot.NewNotifier(store, posters, logger)
}
