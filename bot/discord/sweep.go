package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Sweep implements bot.ChannelSweep: for every channel showing answers in a configured guild,
// it reads its permission overwrites and the guild's roles from Discord now (never from the
// caches: a run has its own audience reading fresh, as http mode does for every question) and
// withdraws what the viewers may not read (settleChannel with force). In http mode, where no
// gateway event ever tells of a change, it is the only thing that catches a permission change
// in a channel where nobody asks again; in gateway mode it catches a lost event. A channel
// Discord no longer lets cita see (unknown channel, missing access, 403 or 404), or that became
// an announcement channel, loses every answer that used a document (bot.SweepChannels).
func (a *Adapter) Sweep(ctx context.Context) (bot.SweepResult, error) {
	store := a.handler.Store()
	if store == nil {
		return bot.SweepResult{}, errors.New("no store: nothing records answers")
	}
	channels, err := store.AnsweredChannels(ctx, platform)
	if err != nil {
		return bot.SweepResult{}, err
	}
	channels = slices.DeleteFunc(channels, func(ch bot.ConversationKey) bool { return !a.allowedGuild(ch.Workspace) })
	fresh := newAudience(a.session, store, a.audience.access, a.opts.GuildIDs, true, a.logger, a.now)
	return bot.SweepChannels(ctx, channels, bot.SweptChannels{Platform: platform, Logger: a.logger,
		Check: func(ctx context.Context, guildID, channelID string) error {
			return a.sweepChannel(ctx, fresh, guildID, channelID)
		},
		CannotSee: cannotSee, WithdrawAll: a.withdrawAll})
}

// sweepChannel checks one channel's answers against its viewers now.
func (a *Adapter) sweepChannel(ctx context.Context, fresh *audience, guildID, channelID string) error {
	_, version, _, err := a.resolveChannel(ctx, fresh, guildID, channelID, true)
	if err != nil {
		return err
	}
	if version < 0 {
		return errors.New("record channel viewers")
	}
	return nil
}

// withdrawAll withdraws every answer shown in channel (and its threads) that used a document:
// as if a viewer who may read nothing had been let in. That viewer is recorded first, as the
// channel's only reader: no write of such an answer follows, the channel's doubt (if any) ends,
// and its next question records its real viewers again.
func (a *Adapter) withdrawAll(ctx context.Context, guildID, channelID string) error {
	store := a.handler.Store()
	v, err := a.audience.versionsOf(ctx, guildID, channelID)
	if err == nil {
		_, _, err = store.RecordReaders(ctx, platform, guildID, channelID, []rag.Scope{{}}, v.channel)
	}
	if err != nil {
		// Not recorded (the version moved, or the database failed): at least the next write of
		// each answer meets a reader who reads nothing.
		if _, aerr := store.AddReader(ctx, platform, guildID, channelID, "", rag.Scope{}); aerr != nil {
			a.logger.ErrorContext(ctx, "record that nobody known sees a discord channel", slog.String("channel_id", channelID),
				slog.Any("error", errors.Join(err, aerr)))
		}
	}
	reds, err := store.RedactUnreadable(ctx, platform, guildID, channelID, []rag.Scope{{}})
	if err != nil {
		return fmt.Errorf("withdraw answers in %s: %w", channelID, err)
	}
	for _, red := range reds {
		a.showRedaction(ctx, red)
	}
	return nil
}

// cannotSee reports whether err says cita cannot know the channel's viewers for good: Discord
// does not let it see the channel, or the channel publishes to other servers.
func cannotSee(err error) bool {
	if errors.Is(err, errAnnouncement) {
		return true
	}
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) {
		return false
	}
	if rest.Message != nil && (rest.Message.Code == discordgo.ErrCodeUnknownChannel || rest.Message.Code == discordgo.ErrCodeMissingAccess) {
		return true
	}
	return rest.Response != nil && (rest.Response.StatusCode == http.StatusForbidden || rest.Response.StatusCode == http.StatusNotFound)
}
