package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// Sweep implements bot.ChannelSweep: for every channel showing answers (bot.Audiences'
// AnsweredChannels), it asks Slack who reads it now, exactly as a question there would
// (channelAudience), and withdraws what they may not read (settleChannel with force, so a
// withdrawal lost after the readers were recorded is made again too). This catches a
// member_joined_channel event that never arrived, in a channel where nobody asks again.
//
// When Slack says cita can no longer see the channel (channel_not_found, not_in_channel), who
// reads it cannot be known: every answer there that used a document is withdrawn, as a failed
// join check does. Any other failure (network, rate limit past its retries, the database) is
// counted in the result and leaves the channel as it is: it is evidence of nothing, and
// withdrawing every answer in the workspace during a Slack outage would do more harm than the
// retry a few minutes later (the run is incomplete, so the lag metric grows and the sweep is
// retried at the next check).
func (a *Adapter) Sweep(ctx context.Context) (bot.SweepResult, error) {
	var res bot.SweepResult
	channels, err := a.opts.Store.AnsweredChannels(ctx, platform)
	if err != nil {
		return res, err
	}
	for _, ch := range channels {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Channels++
		switch err := a.sweepChannel(ctx, ch.Workspace, ch.Channel); {
		case err == nil:
		case cannotSee(err):
			a.logger.WarnContext(ctx, "sweep: slack says cita cannot see the channel; withdrawing its answers",
				slog.String("channel_id", ch.Channel), slog.Any("error", err))
			a.withdrawAll(ctx, ch.Workspace, ch.Channel)
			res.Closed++
		default:
			a.logger.ErrorContext(ctx, "sweep: check slack channel; retried at the next sweep",
				slog.String("channel_id", ch.Channel), slog.Any("error", err))
			res.Failed++
		}
	}
	return res, nil
}

// sweepChannel checks one channel's answers against who reads it now. It returns an error when
// Slack cannot say who reads it, or when the readers could not be recorded.
func (a *Adapter) sweepChannel(ctx context.Context, team, channel string) error {
	v, err := a.audienceVersions(ctx, channel)
	if err != nil {
		return fmt.Errorf("read audience versions: %w", err)
	}
	aud, err := a.channelAudience(ctx, v, channel)
	if err != nil {
		return err
	}
	if version := a.settleChannel(ctx, team, channel, v, aud, true); version < 0 {
		return errors.New("record channel readers")
	}
	return nil
}

// cannotSee reports whether Slack says the bot cannot see the channel any more.
func cannotSee(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "channel_not_found" || se.Err == "not_in_channel")
}
