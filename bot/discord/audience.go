package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/rag"
)

// audienceTTL is how long a guild's roles, a channel's viewers and a DM user's roles are
// reused before Discord is asked again.
const audienceTTL = time.Minute

// audience resolves scopes: the asker's own groups, and the groups every viewer of a channel
// shares. It reads Discord through the session (its state first, in gateway mode).
type audience struct {
	session *discordgo.Session
	access  accessMap
	guilds  []string // configured guilds: DM askers must be a member of one
	logger  *slog.Logger
	cache   *boundedCache[any]
}

func newAudience(s *discordgo.Session, access accessMap, guilds []string, logger *slog.Logger, now func() time.Time) *audience {
	return &audience{session: s, access: access, guilds: guilds, logger: logger,
		cache: newBoundedCache[any](maxAudienceEntries, audienceTTL, now)}
}

// Errors of dmScope: the asker is a member of no configured guild, or Discord could not say.
var (
	errNotMember         = errors.New("not a member of any configured guild")
	errMembershipUnknown = errors.New("membership in the configured guilds unknown")
)

// askerScope returns the scope of a member of guildID holding roleIDs: their roles' groups and
// the default groups. It is empty when nothing maps them; the Handler then replies with a
// reason.
func (a *audience) askerScope(ctx context.Context, guildID, userID string, roleIDs []string) rag.Scope {
	return a.access.scopeFor(guildID, userID, roleIDs, a.guildRoles(ctx, guildID))
}

// dmScope returns the scope of a DM asker: the union of their groups in every configured guild
// they are a member of (looked up, cached briefly). Someone in none of them gets errNotMember;
// when no guild confirms membership and some lookup failed, errMembershipUnknown (fail
// closed). A failed lookup next to a confirmed membership only leaves that guild's groups out.
func (a *audience) dmScope(ctx context.Context, userID string) (rag.Scope, error) {
	var groups []string
	member := false
	var failed error
	for _, g := range a.guilds {
		roles, err := a.memberRoles(ctx, g, userID)
		switch {
		case errors.Is(err, errNotMember):
			continue
		case err != nil:
			a.logger.WarnContext(ctx, "discord member lookup", slog.String("guild_id", g), slog.String("user_id", userID), slog.Any("error", err))
			failed = errors.Join(failed, err)
			continue
		}
		member = true
		groups = append(groups, a.access.scopeFor(g, userID, roles, a.guildRoles(ctx, g)).Groups()...)
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

// channelScope returns the scope every member who can see channelID, now or later, shares:
// computed from the channel's (for a thread, its parent's) permission overwrites and the guild's
// roles, then narrowed by the channel's (and a thread's parent's) configured channel groups. A
// pin never widens the scope. It is empty when the viewers share no group, errAnnouncement in an
// announcement channel, and another error when anything deciding it cannot be read from Discord
// (then no visible answer is given).
func (a *audience) channelScope(ctx context.Context, guildID, channelID string) (rag.Scope, error) {
	ch, err := a.channel(ctx, channelID)
	if err != nil {
		return rag.Scope{}, err
	}
	if ch.Type == discordgo.ChannelTypeGuildNews {
		return rag.Scope{}, errAnnouncement
	}
	pins := [][]string{a.access.channelGroups[ch.ID]}
	if ch.IsThread() {
		if ch.ParentID == "" {
			return rag.Scope{}, fmt.Errorf("thread %s has no parent channel", ch.ID)
		}
		pins = append(pins, a.access.channelGroups[ch.ParentID])
		if ch, err = a.channel(ctx, ch.ParentID); err != nil {
			return rag.Scope{}, err
		}
	}
	if ch.GuildID != "" && ch.GuildID != guildID {
		return rag.Scope{}, fmt.Errorf("channel %s belongs to guild %s, not %s", ch.ID, ch.GuildID, guildID)
	}
	guild, err := a.guild(ctx, guildID)
	if err != nil {
		return rag.Scope{}, err
	}
	viewers, err := viewersOf(guildID, guild.OwnerID, guild.Roles, ch.PermissionOverwrites)
	if err != nil {
		return rag.Scope{}, fmt.Errorf("viewers of channel %s: %w", ch.ID, err)
	}
	memberRoles := map[string][]string{}
	for _, id := range viewers.Members {
		roles, err := a.memberRoles(ctx, guildID, id)
		if err != nil && !errors.Is(err, errNotMember) {
			return rag.Scope{}, fmt.Errorf("viewers of channel %s: %w", ch.ID, err)
		}
		memberRoles[id] = roles // none for someone who left: what they would have on rejoining
	}
	scope := a.access.audienceScope(guildID, viewers, guild.Roles, memberRoles)
	for _, pin := range pins {
		if pin != nil {
			pinned, _ := rag.NewScope(pin...)
			scope = scope.Intersect(pinned)
		}
	}
	return scope, nil
}

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

func (a *audience) guild(ctx context.Context, id string) (*discordgo.Guild, error) {
	if g, err := a.session.State.Guild(id); err == nil && len(g.Roles) > 0 {
		return g, nil
	}
	v, err := a.remember("guild:"+id, func() (any, error) {
		return a.session.Guild(id, discordgo.WithContext(ctx))
	})
	if err != nil {
		return nil, fmt.Errorf("read guild %s: %w", id, err)
	}
	return v.(*discordgo.Guild), nil
}

// guildRoles returns the guild's roles, or nil when they cannot be read (role-name mappings then
// do not apply, which only narrows the asker's groups).
func (a *audience) guildRoles(ctx context.Context, guildID string) []*discordgo.Role {
	g, err := a.guild(ctx, guildID)
	if err != nil {
		a.logger.WarnContext(ctx, "discord guild roles unavailable", slog.String("guild_id", guildID), slog.Any("error", err))
		return nil
	}
	return g.Roles
}

// memberRoles returns a member's role ids. The error is errNotMember when Discord says they are
// not a member (remembered like a membership), any other error when Discord cannot be read.
func (a *audience) memberRoles(ctx context.Context, guildID, userID string) ([]string, error) {
	v, err := a.remember("member:"+guildID+":"+userID, func() (any, error) {
		m, err := a.session.GuildMember(guildID, userID, discordgo.WithContext(ctx))
		if isUnknownMember(err) {
			return membership{}, nil
		}
		if err != nil {
			return nil, err
		}
		return membership{member: true, roles: m.Roles}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("look up member %s of guild %s: %w", userID, guildID, err)
	}
	m := v.(membership)
	if !m.member {
		return nil, errNotMember
	}
	return m.roles, nil
}

// membership is a cached member lookup: a member with their roles, or not a member.
type membership struct {
	member bool
	roles  []string
}

// isUnknownMember reports whether err is Discord saying the user is not a member of the guild.
func isUnknownMember(err error) bool {
	var rest *discordgo.RESTError
	return errors.As(err, &rest) && rest.Message != nil &&
		(rest.Message.Code == discordgo.ErrCodeUnknownMember || rest.Message.Code == discordgo.ErrCodeUnknownUser)
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
