package slack

import (
	"context"
	"errors"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// Sweep implements bot.ChannelSweep: for every channel showing answers, it asks Slack who
// reads it now, exactly as a question there would (channelAudience), and withdraws what they
// may not read (settleChannel with force, so a withdrawal lost after the readers were recorded
// is made again too). This catches a member_joined_channel event that never arrived, in a
// channel where nobody asks again. A channel Slack no longer lets cita see (channel_not_found,
// not_in_channel) loses every answer that used a document (bot.SweepChannels).
func (a *Adapter) Sweep(ctx context.Context) (bot.SweepResult, error) {
	channels, err := a.opts.Store.AnsweredChannels(ctx, platform)
	if err != nil {
		return bot.SweepResult{}, err
	}
	return bot.SweepChannels(ctx, channels, bot.SweptChannels{Platform: platform, Logger: a.logger,
		Check: a.sweepChannel, CannotSee: cannotSee, WithdrawAll: a.withdrawAll})
}

// sweepChannel checks one channel's answers against who reads it now. It returns an error when
// Slack cannot say who reads it, or when the readers could not be recorded.
func (a *Adapter) sweepChannel(ctx context.Context, team, channel string) error {
	_, version, err := a.resolveChannel(ctx, team, channel, true)
	if err != nil {
		return err
	}
	if version < 0 {
		return errors.New("record channel readers")
	}
	return nil
}

// cannotSee reports whether Slack says the bot cannot see the channel any more.
func cannotSee(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "channel_not_found" || se.Err == "not_in_channel")
}
