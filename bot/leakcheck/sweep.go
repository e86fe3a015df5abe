package leakcheck

import (
	"context"
	"fmt"
	"time"

	discordbot "github.com/citahq/cita/bot/discord"
	slackbot "github.com/citahq/cita/bot/slack"
)

// The reconciliation sweep (issue 22, branch edges) re-lists the members or permissions of every
// channel that holds answers and withdraws what they may no longer read: the only thing that
// catches a join whose event was lost in a quiet channel. The harness runs it at the end of a
// churn round, on one replica, before it settles; a lost join's leak must then be closed.
//
// The hooks run one adapter's sweep (bot/slack and bot/discord Sweep); the sweep break
// (faults.noSweep) turns them off, and every lost join whose channel asks nothing more before
// the round settles is then a leak ("withdrawal after a lost join").
var (
	sweepSlack = func(ctx context.Context, a *slackbot.Adapter) error {
		_, err := a.Sweep(ctx)
		return err
	}
	sweepDiscord = func(ctx context.Context, a *discordbot.Adapter) error {
		_, err := a.Sweep(ctx)
		return err
	}
)

// sweep runs the sweep of one replica (the rounds take turns), unless the run breaks it on
// purpose. It reports whether a sweep ran.
func (r *run) sweep(ctx context.Context, round int) (bool, error) {
	if r.cfg.faults.noSweep || (sweepSlack == nil && sweepDiscord == nil) {
		return false, nil
	}
	defer func(began time.Time) { r.report.InSweeps += time.Since(began) }(time.Now())
	i := round % len(r.reps)
	if sweepSlack != nil {
		if err := sweepSlack(ctx, r.slack.adapters[i]); err != nil {
			return true, fmt.Errorf("slack sweep: %w", err)
		}
	}
	if sweepDiscord != nil {
		if err := sweepDiscord(ctx, r.discord.adapters[i]); err != nil {
			return true, fmt.Errorf("discord sweep: %w", err)
		}
	}
	return true, nil
}
