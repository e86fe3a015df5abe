package discord

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// maxSettledChannels bounds the channels one role change checks at once; the others are checked
// at their next question.
const maxSettledChannels = 500

// audienceHandlers are the gateway handlers that keep every replica's view of who sees what
// current: the replica that receives an event records it in the database (BumpAudience), and
// every replica checks the versions at its next question. Where the event can reveal answers to
// new viewers, this replica also withdraws them at once.
func (a *Adapter) audienceHandlers() []any {
	roles := func(guildID string) {
		a.goWork(func(ctx context.Context) { a.rolesChanged(ctx, guildID) }, nil)
	}
	return []any{
		func(_ *discordgo.Session, e *discordgo.GuildRoleCreate) { roles(e.GuildID) },
		func(_ *discordgo.Session, e *discordgo.GuildRoleUpdate) { roles(e.GuildID) },
		func(_ *discordgo.Session, e *discordgo.GuildRoleDelete) { roles(e.GuildID) },
		func(_ *discordgo.Session, e *discordgo.GuildUpdate) { // the owner, and what roles mean
			if e.Guild != nil {
				roles(e.ID)
			}
		},
		func(_ *discordgo.Session, e *discordgo.GuildMemberUpdate) {
			if e.Member == nil || e.User == nil {
				return
			}
			m, before := e.Member, e.BeforeUpdate
			a.goWork(func(ctx context.Context) { a.memberUpdated(ctx, m, before) }, nil)
		},
		func(_ *discordgo.Session, e *discordgo.GuildMemberAdd) {
			if e.Member != nil {
				// A newcomer holds no role yet, and someone let in by an overwrite who comes
				// back only widens what they read: no answer needs withdrawing.
				g := e.GuildID
				a.goWork(func(ctx context.Context) { a.bump(ctx, g, bot.SubjectUsers) }, nil)
			}
		},
		func(_ *discordgo.Session, e *discordgo.GuildMemberRemove) {
			if e.Member != nil {
				// Someone let in by a member overwrite now counts without roles.
				g := e.GuildID
				a.goWork(func(ctx context.Context) {
					a.doubtGuild(ctx, g)
					if a.bump(ctx, g, bot.SubjectUsers) {
						a.settleGuildSoon(g)
					}
				}, nil)
			}
		},
		func(_ *discordgo.Session, e *discordgo.ChannelUpdate) {
			if e.Channel != nil {
				ch := e.Channel
				a.goWork(func(ctx context.Context) { a.channelChanged(ctx, ch) }, nil)
			}
		},
		func(_ *discordgo.Session, e *discordgo.ChannelDelete) {
			if e.Channel != nil {
				g, id := e.GuildID, e.ID
				a.goWork(func(ctx context.Context) { a.bump(ctx, g, bot.ChannelSubject(id)) }, nil)
			}
		},
		func(_ *discordgo.Session, e *discordgo.ThreadUpdate) {
			if e.Channel != nil {
				g, id := e.GuildID, e.ID
				a.goWork(func(ctx context.Context) { a.bump(ctx, g, bot.ChannelSubject(id)) }, nil)
			}
		},
	}
}

// rolesChanged handles a change of the guild's roles (or of what they mean, such as its owner):
// every replica reads them again, and the channels showing answers are checked for new viewers.
func (a *Adapter) rolesChanged(ctx context.Context, guildID string) {
	a.doubtGuild(ctx, guildID)
	if a.bump(ctx, guildID, bot.SubjectRoles) {
		a.settleGuildSoon(guildID)
	}
}

// doubtGuild puts the viewers of every channel of guildID showing answers in doubt, before the
// change that may widen them is read: every write of an answer there waits until the channel is
// settled again (bot.Audiences.MarkDoubt).
func (a *Adapter) doubtGuild(ctx context.Context, guildID string) {
	store := a.handler.Store()
	if !a.allowedGuild(guildID) || store == nil {
		return
	}
	channels, err := store.ChannelsWithAnswers(ctx, platform, guildID)
	if err == nil {
		err = store.MarkDoubt(ctx, platform, guildID, channels...)
	}
	if err != nil {
		a.logger.ErrorContext(ctx, "hold discord answers while a permission change is read; writes meanwhile check the viewers recorded before",
			slog.String("guild_id", guildID), slog.Any("error", err))
	}
}

// memberUpdated handles GUILD_MEMBER_UPDATE, which Discord sends for every change of a member
// (a nickname, an avatar): the roles version is bumped unless this replica knows, under the
// current versions, that the member's roles are unchanged. The gateway state's copy of the
// member (before) can prove a change but never its absence: it misses the events other
// replicas received.
func (a *Adapter) memberUpdated(ctx context.Context, m, before *discordgo.Member) {
	if !a.allowedGuild(m.GuildID) {
		return
	}
	changed := before != nil && !sameSet(before.Roles, m.Roles)
	if !changed && a.audience.knownRoles(ctx, m.GuildID, m.User.ID, m.Roles) {
		return
	}
	a.rolesChanged(ctx, m.GuildID)
}

// channelChanged handles CHANNEL_UPDATE: every replica reads the channel again (and a category's
// channels, whose overwrites may follow it), and its answers are checked against its viewers now.
func (a *Adapter) channelChanged(ctx context.Context, ch *discordgo.Channel) {
	subjects := []string{bot.ChannelSubject(ch.ID)}
	if ch.Type == discordgo.ChannelTypeGuildCategory {
		if g, err := a.session.State.Guild(ch.GuildID); err == nil {
			a.session.State.RLock()
			for _, c := range g.Channels {
				if c.ParentID == ch.ID {
					subjects = append(subjects, bot.ChannelSubject(c.ID))
				}
			}
			a.session.State.RUnlock()
		}
	}
	if !a.bump(ctx, ch.GuildID, subjects...) {
		return
	}
	// Of these, the channels showing answers are held until settled again: the change may let
	// someone new see them.
	var channels []string
	if answered, err := a.handler.Store().ChannelsWithAnswers(ctx, platform, ch.GuildID); err == nil {
		for _, s := range subjects {
			if c := strings.TrimPrefix(s, "channel:"); slices.Contains(answered, c) {
				channels = append(channels, c)
			}
		}
	} else {
		a.logger.ErrorContext(ctx, "list discord channels with answers", slog.String("guild_id", ch.GuildID), slog.Any("error", err))
		channels = []string{ch.ID}
	}
	if err := a.handler.Store().MarkDoubt(ctx, platform, ch.GuildID, channels...); err != nil {
		a.logger.ErrorContext(ctx, "hold discord answers while a channel's permissions are read; writes meanwhile check the viewers recorded before",
			slog.String("channel_id", ch.ID), slog.Any("error", err))
	}
	for _, c := range channels {
		if c != ch.ID || ch.Type != discordgo.ChannelTypeGuildCategory {
			a.settleAnswered(ctx, ch.GuildID, c)
		}
	}
}

// guildConnected handles GUILD_CREATE. The first one in this process needs nothing: nothing
// is cached yet. A later one follows a new gateway session (a resume replays what was missed,
// a new session does not), so changes may have been missed meanwhile: every replica reads the
// guild again.
func (a *Adapter) guildConnected(ctx context.Context, g *discordgo.Guild) {
	a.connectedMu.Lock()
	again := a.connected[g.ID]
	a.connected[g.ID] = true
	a.connectedMu.Unlock()
	if !again || !a.allowedGuild(g.ID) {
		return
	}
	subjects := []string{bot.SubjectUsers, bot.SubjectRoles}
	for _, c := range g.Channels {
		subjects = append(subjects, bot.ChannelSubject(c.ID))
	}
	a.doubtGuild(ctx, g.ID)
	if a.bump(ctx, g.ID, subjects...) {
		a.settleGuildSoon(g.ID)
	}
}

// bump records that subjects of guildID changed, for every replica, and reports whether it
// did. When that fails the other replicas are not told, so this one at least forgets what it
// read; theirs expire within audienceTTL. Events from guilds that are not configured are
// ignored.
func (a *Adapter) bump(ctx context.Context, guildID string, subjects ...string) bool {
	store := a.handler.Store()
	if !a.allowedGuild(guildID) || store == nil {
		return false
	}
	if err := store.BumpAudience(ctx, platform, guildID, subjects...); err != nil {
		a.logger.ErrorContext(ctx, "record discord audience change; other replicas see it within a minute",
			slog.String("guild_id", guildID), slog.Any("subjects", subjects), slog.Any("error", err))
		a.audience.forget()
		return false
	}
	return true
}

// settleGuildSoon checks, in the background, every channel of guildID that shows answers. One
// check runs at a time per guild; changes during a check ask for one more after it.
func (a *Adapter) settleGuildSoon(guildID string) {
	a.settleMu.Lock()
	if a.settling[guildID] {
		a.settleAgain[guildID] = true
		a.settleMu.Unlock()
		return
	}
	a.settling[guildID] = true
	a.settleMu.Unlock()
	a.goWork(func(ctx context.Context) {
		defer func() {
			a.settleMu.Lock()
			delete(a.settling, guildID)
			delete(a.settleAgain, guildID)
			a.settleMu.Unlock()
		}()
		for {
			a.settleGuild(ctx, guildID)
			a.settleMu.Lock()
			again := a.settleAgain[guildID]
			delete(a.settleAgain, guildID)
			a.settleMu.Unlock()
			if !again || ctx.Err() != nil {
				return
			}
		}
	}, nil)
}

// settleGuild checks every channel of guildID that shows answers (at most maxSettledChannels).
func (a *Adapter) settleGuild(ctx context.Context, guildID string) {
	channels, err := a.handler.Store().ChannelsWithAnswers(ctx, platform, guildID)
	if err != nil {
		a.logger.ErrorContext(ctx, "list discord channels with answers; each is checked at its next question",
			slog.String("guild_id", guildID), slog.Any("error", err))
		return
	}
	if len(channels) > maxSettledChannels {
		a.logger.WarnContext(ctx, "discord role change: checking the first channels only; the others at their next question",
			slog.String("guild_id", guildID), slog.Int("channels", len(channels)), slog.Int("checked", maxSettledChannels))
		channels = channels[:maxSettledChannels]
	}
	for _, ch := range channels {
		a.settleAnswered(ctx, guildID, ch)
	}
}

// settleAnswered checks one channel's answers against its viewers now, after a change that put
// them in doubt. When Discord cannot say who sees the channel, the check is retried
// (bot.CheckRetries); when it still cannot, every answer there that used a document is
// withdrawn (fail closed), which also ends the doubt.
func (a *Adapter) settleAnswered(ctx context.Context, guildID, channelID string) {
	attrs := []any{slog.String("guild_id", guildID), slog.String("channel_id", channelID)}
	err := bot.Retrying(ctx, func() error {
		_, _, _, err := a.resolveChannel(ctx, a.audience, guildID, channelID, false)
		return err
	}, func(err error) {
		a.logger.WarnContext(ctx, "check discord channel after a change; retrying", append(attrs, slog.Any("error", err))...)
	})
	if err == nil {
		return
	}
	a.logger.ErrorContext(ctx, "check discord channel after a change failed; withdrawing its answers", append(attrs, slog.Any("error", err))...)
	if err := a.withdrawAll(context.WithoutCancel(ctx), guildID, channelID); err != nil {
		a.logger.ErrorContext(ctx, "withdraw discord answers after a change; the channel's next check withdraws again", append(attrs, slog.Any("error", err))...)
	}
}
