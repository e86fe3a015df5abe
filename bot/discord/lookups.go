package discord

import (
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// versions is what the database said of a guild's audience subjects at one moment
// (bot.AudienceState): whatever the adapter read from Discord about who sees what is reused only
// under the versions it was read under. Any replica that hears of a change bumps them.
type versions struct {
	// users covers who is a member (GUILD_MEMBER_ADD/REMOVE); roles the guild's roles, its
	// owner and who holds which role (GUILD_ROLE_*, GUILD_UPDATE, GUILD_MEMBER_UPDATE).
	users, roles int64
	// channel is the version of the channel asked about (CHANNEL_UPDATE, THREAD_UPDATE, a
	// change of its viewers); readers and recorded its viewers' fingerprints as settled and
	// recorded last (nil when never); doubt says a change of them is being resolved.
	channel           int64
	readers, recorded []byte
	doubt             bool
}

// versionsOf reads the versions of guildID's members and roles and, when channelID is set, of
// that channel, in one query. Without a store (tests of the transport alone) every version is
// 0: nothing is shared, and the caches' ttl alone bounds their age.
func (a *audience) versionsOf(ctx context.Context, guildID, channelID string) (versions, error) {
	if a.store == nil {
		return versions{}, nil
	}
	subjects := []string{bot.SubjectUsers, bot.SubjectRoles}
	if channelID != "" {
		subjects = append(subjects, bot.ChannelSubject(channelID))
	}
	st, err := a.store.AudienceStates(ctx, platform, guildID, subjects...)
	if err != nil {
		return versions{}, fmt.Errorf("read audience versions of guild %s: %w", guildID, err)
	}
	v := versions{users: st[0].Version, roles: st[1].Version}
	if channelID != "" {
		v.channel, v.readers, v.recorded, v.doubt = st[2].Version, st[2].Readers, st[2].Recorded, st[2].Doubt
	}
	return v, nil
}

// guild returns the guild (its roles and owner) as read under the roles version v. In http mode
// it is read from Discord for every question: no event would tell of a change.
func (a *audience) guild(ctx context.Context, v versions, id string) (*discordgo.Guild, error) {
	if !a.fresh {
		if g, ok := a.guildCache.Get(id, v.roles); ok {
			return g, nil
		}
	}
	g, err := a.session.Guild(id, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("read guild %s: %w", id, err)
	}
	if !a.fresh {
		a.guildCache.Set(id, g, v.roles)
	}
	return g, nil
}

// viewedChannel returns a channel (its type, parent and permission overwrites) as read under its
// version; in http mode it is read from Discord for every question.
func (a *audience) viewedChannel(ctx context.Context, version int64, id string) (*discordgo.Channel, error) {
	if !a.fresh {
		if ch, ok := a.channels.Get(id, version); ok {
			return ch, nil
		}
	}
	ch, err := a.session.Channel(id, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("read channel %s: %w", id, err)
	}
	if !a.fresh {
		a.channels.Set(id, ch, version)
	}
	return ch, nil
}

// membership is a member lookup: a member with their roles, or not a member.
type membership struct {
	member bool
	roles  []string
}

// memberRoles returns a member's role ids as cached under the users and roles versions v, or,
// unless reuse, as Discord says now (and caches). The error is errNotMember when Discord says
// they are not a member (cached like a membership), any other error when Discord cannot be read.
func (a *audience) memberRoles(ctx context.Context, v versions, guildID, userID string, reuse bool) ([]string, error) {
	key := guildID + "/" + userID
	m, ok := membership{}, false
	if reuse {
		m, ok = a.members.Get(key, v.users, v.roles)
	}
	if !ok {
		got, err := a.session.GuildMember(guildID, userID, discordgo.WithContext(ctx))
		switch {
		case isUnknownMember(err):
		case err != nil:
			return nil, fmt.Errorf("look up member %s of guild %s: %w", userID, guildID, err)
		default:
			m = membership{member: true, roles: got.Roles}
		}
		a.members.Set(key, m, v.users, v.roles)
	}
	if !m.member {
		return nil, errNotMember
	}
	return m.roles, nil
}

// knownRoles reports whether this replica already knows, under the current versions, that the
// member holds exactly roles: a member update that changes nothing it relies on.
func (a *audience) knownRoles(ctx context.Context, guildID, userID string, roles []string) bool {
	v, err := a.versionsOf(ctx, guildID, "")
	if err != nil {
		return false
	}
	m, ok := a.members.Get(guildID+"/"+userID, v.users, v.roles)
	return ok && m.member && sameSet(m.roles, roles)
}

// forget drops everything this replica read about who sees what: when a change could not be
// recorded for the other replicas, this one at least does not keep it.
func (a *audience) forget() {
	a.guildCache.Clear()
	a.channels.Clear()
	a.members.Clear()
}

// isUnknownMember reports whether err is Discord saying the user is not a member of the guild.
func isUnknownMember(err error) bool {
	var rest *discordgo.RESTError
	return errors.As(err, &rest) && rest.Message != nil &&
		(rest.Message.Code == discordgo.ErrCodeUnknownMember || rest.Message.Code == discordgo.ErrCodeUnknownUser)
}

// sameSet reports whether two lists of ids hold the same ids.
func sameSet(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	seen := make(map[string]int, len(x))
	for _, id := range x {
		seen[id]++
	}
	for _, id := range y {
		if seen[id] == 0 {
			return false
		}
		seen[id]--
	}
	return true
}
