package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	value any
	until time.Time
}

func newAudience(s *discordgo.Session, access accessMap, guilds []string, logger *slog.Logger) *audience {
	return &audience{session: s, access: access, guilds: guilds, logger: logger, cache: map[string]cached{}}
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

// channelScope returns the scope every member who can see channelID shares: the configured
// channel_groups when set, else computed from the channel's (or, for a thread, its parent's)
// permission overwrites and the guild's roles. It is empty when they share no group, and an
// error when Discord cannot be read (then no visible answer is given).
func (a *audience) channelScope(ctx context.Context, guildID, channelID string) (rag.Scope, error) {
	if groups, ok := a.access.channelGroups[channelID]; ok {
		scope, _ := rag.NewScope(groups...)
		return scope, nil
	}
	ch, err := a.channel(ctx, channelID)
	if err != nil {
		return rag.Scope{}, err
	}
	if ch.IsThread() && ch.ParentID != "" {
		if groups, ok := a.access.channelGroups[ch.ParentID]; ok {
			scope, _ := rag.NewScope(groups...)
			return scope, nil
		}
		if ch, err = a.channel(ctx, ch.ParentID); err != nil {
			return rag.Scope{}, err
		}
	}
	guild, err := a.guild(ctx, guildID)
	if err != nil {
		return rag.Scope{}, err
	}
	viewers := viewersOf(guildID, guild.OwnerID, guild.Roles, ch.PermissionOverwrites)
	memberRoles := map[string][]string{}
	for _, id := range viewers.Members {
		if roles, err := a.memberRoles(ctx, guildID, id); err == nil {
			memberRoles[id] = roles
		}
	}
	return a.access.audienceScope(guildID, viewers, guild.Roles, memberRoles), nil
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

// remember returns the cached value of key, or loads and caches it for audienceTTL. Errors are
// not cached.
func (a *audience) remember(key string, load func() (any, error)) (any, error) {
	a.mu.Lock()
	if c, ok := a.cache[key]; ok && time.Now().Before(c.until) {
		a.mu.Unlock()
		return c.value, nil
	}
	a.mu.Unlock()
	v, err := load()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.cache[key] = cached{value: v, until: time.Now().Add(audienceTTL)}
	a.mu.Unlock()
	return v, nil
}
