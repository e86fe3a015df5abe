package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// audienceTTL bounds how long what was read from Discord about who sees what (a guild's
// roles, a channel's overwrites, a member's roles) is reused under unchanged versions: the
// backstop for a change whose event was lost. Identity facts (whether a channel is a thread,
// its parent) are remembered as long.
const audienceTTL = time.Minute

// audience resolves scopes: the asker's own groups, and the groups every viewer of a channel
// shares. What it reads from Discord it keeps under the audience versions in the database
// (versionsOf), so a change any replica hears of reaches every replica at its next question.
type audience struct {
	session *discordgo.Session
	store   bot.Audiences // nil: no versions (transport tests)
	access  accessMap
	guilds  []string // configured guilds: DM askers must be a member of one
	// fresh reads guilds and channels from Discord for every question: in http mode no
	// gateway event tells of a change.
	fresh  bool
	logger *slog.Logger

	guildCache *bot.VersionedCache[*discordgo.Guild]
	channels   *bot.VersionedCache[*discordgo.Channel]
	members    *bot.VersionedCache[membership]
	cache      *boundedCache[any] // identity facts: a channel's type and parent
}

func newAudience(s *discordgo.Session, store bot.Audiences, access accessMap, guilds []string, fresh bool, logger *slog.Logger, now func() time.Time) *audience {
	return &audience{session: s, store: store, access: access, guilds: guilds, fresh: fresh, logger: logger,
		guildCache: bot.NewBoundedVersionedCache[*discordgo.Guild](maxAudienceEntries, audienceTTL, now),
		channels:   bot.NewBoundedVersionedCache[*discordgo.Channel](maxAudienceEntries, audienceTTL, now),
		members:    bot.NewBoundedVersionedCache[membership](maxAudienceEntries, audienceTTL, now),
		cache:      newBoundedCache[any](maxAudienceEntries, audienceTTL, now)}
}

// Errors of dmScope: the asker is a member of no configured guild, or Discord could not say.
var (
	errNotMember         = errors.New("not a member of any configured guild")
	errMembershipUnknown = errors.New("membership in the configured guilds unknown")
)

// askerScope returns the scope of a member of guildID holding roleIDs (as the interaction says,
// fresh): their roles' groups and the default groups. It is empty when nothing maps them; the
// Handler then replies with a reason.
func (a *audience) askerScope(ctx context.Context, guildID, userID string, roleIDs []string) rag.Scope {
	v, err := a.versionsOf(ctx, guildID, "")
	if err != nil {
		a.logger.WarnContext(ctx, "discord audience versions unavailable", slog.String("guild_id", guildID), slog.Any("error", err))
		return a.access.scopeFor(guildID, userID, roleIDs, nil)
	}
	return a.access.scopeFor(guildID, userID, roleIDs, a.guildRoles(ctx, v, guildID))
}

// dmScope returns the scope of a DM asker: the union of their groups in every configured guild
// they are a member of (looked up; in gateway mode cached under the guild's versions, in http
// mode, where no event tells of a change, for every question). Someone in none of them
// gets errNotMember; when no guild confirms membership and some lookup failed,
// errMembershipUnknown (fail closed). A failed lookup next to a confirmed membership only leaves
// that guild's groups out.
func (a *audience) dmScope(ctx context.Context, userID string) (rag.Scope, error) {
	var groups []string
	member := false
	var failed error
	for _, g := range a.guilds {
		v, err := a.versionsOf(ctx, g, "")
		var roles []string
		if err == nil {
			roles, err = a.memberRoles(ctx, v, g, userID, !a.fresh)
		}
		switch {
		case errors.Is(err, errNotMember):
			continue
		case err != nil:
			a.logger.WarnContext(ctx, "discord member lookup", slog.String("guild_id", g), slog.String("user_id", userID), slog.Any("error", err))
			failed = errors.Join(failed, err)
			continue
		}
		member = true
		groups = append(groups, a.access.scopeFor(g, userID, roles, a.guildRoles(ctx, v, g)).Groups()...)
	}
	switch {
	case !member && failed != nil:
		return rag.Scope{}, fmt.Errorf("%w: %w", errMembershipUnknown, failed)
	case !member:
		return rag.Scope{}, errNotMember
	}
	scope, _ := rag.NewScope(groups...) // empty when nothing maps them: the Handler says so
	return scope, nil
}

// errAnnouncement refuses visible answers in an announcement channel: a message there can be
// published to every server that follows the channel, whose readers cita cannot know.
var errAnnouncement = errors.New("announcement channel: messages can be published to other servers")

// channelAudience is who can see a channel, now or later, as far as access goes.
type channelAudience struct {
	// channelID is the channel whose viewers these are (a thread's parent): the channel its
	// answers are recorded under, and whose readers are recorded.
	channelID string
	// thread is the thread asked in; nil outside threads.
	thread *discordgo.Channel
	// readers are the distinct scopes of every kind of viewer (see viewerScopes); a reader with
	// an empty scope reads nothing.
	readers []rag.Scope
	// scope is what a reply there may use: the groups every reader has, narrowed by the
	// channel's (and a thread's parent's) configured channel groups. A pin never widens it.
	scope rag.Scope
	// v are channelID's versions the audience was computed under.
	v versions
	// public: every member of the guild sees it (a member with no role does), and it is not a
	// private thread: what is asked there is no one's secret (bot.Incoming.Public).
	public bool
}

// channelAudience returns who can see channelID (for a thread, its parent): computed from the
// channel's permission overwrites and the guild's roles, read under the audience versions. It
// returns errAnnouncement in an announcement channel, and another error when anything deciding
// it cannot be read (then no visible answer is given).
func (a *audience) channelAudience(ctx context.Context, guildID, channelID string) (channelAudience, error) {
	v, err := a.versionsOf(ctx, guildID, channelID)
	if err != nil {
		return channelAudience{}, err
	}
	ch, err := a.viewedChannel(ctx, v.channel, channelID)
	if err != nil {
		return channelAudience{}, err
	}
	if ch.Type == discordgo.ChannelTypeGuildNews {
		return channelAudience{}, errAnnouncement
	}
	aud := channelAudience{channelID: ch.ID, v: v}
	pins := [][]string{a.access.channelGroups[ch.ID]}
	if ch.IsThread() {
		if ch.ParentID == "" {
			return channelAudience{}, fmt.Errorf("thread %s has no parent channel", ch.ID)
		}
		aud.thread, aud.channelID = ch, ch.ParentID
		pins = append(pins, a.access.channelGroups[ch.ParentID])
		if aud.v, err = a.versionsOf(ctx, guildID, ch.ParentID); err != nil {
			return channelAudience{}, err
		}
		if ch, err = a.viewedChannel(ctx, aud.v.channel, ch.ParentID); err != nil {
			return channelAudience{}, err
		}
	}
	if ch.GuildID != "" && ch.GuildID != guildID {
		return channelAudience{}, fmt.Errorf("channel %s belongs to guild %s, not %s", ch.ID, ch.GuildID, guildID)
	}
	guild, err := a.guild(ctx, aud.v, guildID)
	if err != nil {
		return channelAudience{}, err
	}
	viewers, err := viewersOf(guildID, guild.OwnerID, guild.Roles, ch.PermissionOverwrites)
	if err != nil {
		return channelAudience{}, fmt.Errorf("viewers of channel %s: %w", ch.ID, err)
	}
	memberRoles := map[string][]string{}
	for _, id := range viewers.Members {
		// Cached in http mode too: a lookup per viewer and question would not scale. A role
		// change of someone let in one by one counts within audienceTTL there.
		roles, err := a.memberRoles(ctx, aud.v, guildID, id, true)
		if err != nil && !errors.Is(err, errNotMember) {
			return channelAudience{}, fmt.Errorf("viewers of channel %s: %w", ch.ID, err)
		}
		memberRoles[id] = roles // none for someone who left: what they would have on rejoining
	}
	aud.public = viewers.Everyone && (aud.thread == nil || aud.thread.Type != discordgo.ChannelTypeGuildPrivateThread)
	aud.readers = bot.DistinctScopes(a.access.viewerScopes(guildID, viewers, guild.Roles, memberRoles))
	aud.scope = bot.IntersectScopes(aud.readers)
	for _, pin := range pins {
		if pin != nil {
			pinned, _ := rag.NewScope(pin...)
			aud.scope = aud.scope.Intersect(pinned)
		}
	}
	return aud, nil
}

// channel returns what never changes about a channel: whether it is a thread, its parent and
// owner (the gateway's state first, then Discord, remembered for audienceTTL). Who may see the
// channel is never decided from it: see channelAudience.
func (a *audience) channel(ctx context.Context, id string) (*discordgo.Channel, error) {
	if ch, err := a.session.State.Channel(id); err == nil {
		return ch, nil
	}
	v, err := a.remember("channel:"+id, func() (any, error) {
		return a.session.Channel(id, discordgo.WithContext(ctx))
	})
	if err != nil {
		return nil, fmt.Errorf("read channel %s: %w", id, err)
	}
	return v.(*discordgo.Channel), nil
}

// guildRoles returns the guild's roles, or nil when they cannot be read (role-name mappings then
// do not apply, which only narrows the asker's groups).
func (a *audience) guildRoles(ctx context.Context, v versions, guildID string) []*discordgo.Role {
	g, err := a.guild(ctx, v, guildID)
	if err != nil {
		a.logger.WarnContext(ctx, "discord guild roles unavailable", slog.String("guild_id", guildID), slog.Any("error", err))
		return nil
	}
	return g.Roles
}

// remember returns the cached value of key, or loads and caches it for audienceTTL (at most
// maxAudienceEntries are kept). Errors are not cached.
func (a *audience) remember(key string, load func() (any, error)) (any, error) {
	if v, ok := a.cache.Get(key); ok {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return nil, err
	}
	a.cache.Add(key, v)
	return v, nil
}
