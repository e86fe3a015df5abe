package discord

import (
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// accessMap turns Discord members into cita scopes, as configured: groups keyed by role id
// (by role name too only when names is set), default groups for every member, and per-channel
// groups.
type accessMap struct {
	roles         *bot.AccessMap
	channelGroups map[string][]string
	// names maps roles by name as well as by id. Anyone with Manage Roles can create a role
	// with a mapped name and hand it out, so it is off unless Options.RoleNames asks for it.
	names bool
}

func newAccessMap(opts Options) accessMap {
	return accessMap{roles: opts.Access, channelGroups: opts.ChannelGroups, names: opts.RoleNames}
}

// scopeFor returns the scope of a member holding roles (ids) in a guild whose roles are known
// (nil when they could not be loaded: only id keys then apply). The guild's @everyone role
// (id == guild id) always counts, also as "@everyone". Other roles count by id, and by name only
// when m.names. The scope is empty when nothing maps the member.
func (m accessMap) scopeFor(guildID, userID string, roleIDs []string, guildRoles []*discordgo.Role) rag.Scope {
	names := make(map[string]string, len(guildRoles))
	for _, r := range guildRoles {
		names[r.ID] = strings.ToLower(r.Name)
	}
	held := roleIDs
	if guildID != "" {
		held = append([]string{guildID}, roleIDs...)
	}
	// Discord gives bots no e-mail address: no verified address, so no identity groups and no
	// directory groups to resolve (bot.AccessMap.Resolve would return id unchanged).
	id := bot.Identity{UserID: userID, EmailVerified: false}
	for _, r := range held {
		id.Roles = append(id.Roles, r)
		switch name, ok := names[r]; {
		case r == guildID:
			// Every member holds @everyone; a role copying its name grants nothing more.
			id.Roles = append(id.Roles, "@everyone")
		case ok && m.names:
			id.Roles = append(id.Roles, name)
		}
	}
	scope, _ := m.roles.Scope(id) // an empty scope is the answer when nothing maps the member
	return scope
}

// Permission bits used to decide who can see a channel.
const (
	permAdministrator = int64(discordgo.PermissionAdministrator)
	permViewChannel   = int64(discordgo.PermissionViewChannel)
)

// channelViewers describes everyone who can see a channel, in the smallest terms that decide
// their groups: whether a member with no role sees it, which single roles are enough to see it,
// and which members are let in one by one (member overwrites) or always see it (the owner).
// Every member who can see the channel holds one of these role sets or is one of these members
// (see viewersOf), so intersecting their groups bounds what every viewer may read.
type channelViewers struct {
	Everyone bool
	Roles    []string // role ids, each alone enough to see the channel
	Members  []string // user ids let in by a member overwrite, and the guild owner
}

// viewersOf computes a channel's viewers from the guild's roles and the channel's permission
// overwrites, following Discord's order: base permissions (@everyone | roles, administrator
// wins), then the @everyone overwrite, then role overwrites (all denies, then all allows), then
// the member's own overwrite.
//
// Every role set S that sees the channel contains a subset of at most one role that sees it too:
// an administrator role; a role whose overwrite allows viewing (allows apply after denies); or,
// when no role of S denies viewing, the role that grants it in base permissions (or none, when
// @everyone does). Groups only grow with roles, so the empty set and the single roles suffice.
//
// It returns an error when the guild's roles lack @everyone (whose permissions every member
// has): the viewers cannot be known then.
func viewersOf(guildID, ownerID string, roles []*discordgo.Role, overwrites []*discordgo.PermissionOverwrite) (channelViewers, error) {
	var everyoneBase int64
	found := false
	for _, r := range roles {
		if r.ID == guildID {
			everyoneBase, found = r.Permissions, true
		}
	}
	if !found {
		return channelViewers{}, fmt.Errorf("the roles of guild %s lack @everyone", guildID)
	}
	var everyoneAllow, everyoneDeny int64
	roleAllow, roleDeny := map[string]int64{}, map[string]int64{}
	var v channelViewers
	for _, o := range overwrites {
		switch {
		case o.Type == discordgo.PermissionOverwriteTypeRole && o.ID == guildID:
			everyoneAllow, everyoneDeny = o.Allow, o.Deny
		case o.Type == discordgo.PermissionOverwriteTypeRole:
			roleAllow[o.ID], roleDeny[o.ID] = o.Allow, o.Deny
		case o.Type == discordgo.PermissionOverwriteTypeMember && o.Allow&permViewChannel != 0:
			v.Members = append(v.Members, o.ID)
		}
	}
	sees := func(base, allow, deny int64) bool {
		if base&permAdministrator != 0 {
			return true
		}
		p := (base &^ everyoneDeny) | everyoneAllow
		p = (p &^ deny) | allow
		return p&permViewChannel != 0
	}
	v.Everyone = sees(everyoneBase, 0, 0)
	for _, r := range roles {
		if r.ID != guildID && sees(everyoneBase|r.Permissions, roleAllow[r.ID], roleDeny[r.ID]) {
			v.Roles = append(v.Roles, r.ID)
		}
	}
	if ownerID != "" {
		v.Members = append(v.Members, ownerID)
	}
	return v, nil
}

// viewerScopes returns the scope of every kind of viewer: a member with no role when @everyone
// sees the channel, each role that sees it, each member let in one by one and the owner.
// memberRoles gives the roles of the members listed in v.Members (someone no longer a member
// counts with none: the least they would hold on rejoining). Every viewer holds at least the
// groups of one of them.
func (m accessMap) viewerScopes(guildID string, v channelViewers, roles []*discordgo.Role, memberRoles map[string][]string) []rag.Scope {
	var scopes []rag.Scope
	if v.Everyone {
		scopes = append(scopes, m.scopeFor(guildID, "", nil, roles))
	}
	for _, r := range v.Roles {
		scopes = append(scopes, m.scopeFor(guildID, "", []string{r}, roles))
	}
	for _, id := range v.Members {
		scopes = append(scopes, m.scopeFor(guildID, id, memberRoles[id], roles))
	}
	return scopes
}
