package discord

import (
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
)

// accessMap turns Discord roles into cita access groups, as configured.
type accessMap struct {
	byRole        map[string][]string // role id or lower-cased role name -> groups
	defaultGroups []string
	channelGroups map[string][]string
}

func newAccessMap(cfg config.DiscordConfig) accessMap {
	m := accessMap{byRole: map[string][]string{}, defaultGroups: cfg.DefaultGroups, channelGroups: cfg.ChannelGroups}
	for role, groups := range cfg.RoleGroups {
		key := strings.TrimSpace(role)
		if !isID(key) {
			key = strings.ToLower(key)
		}
		m.byRole[key] = append(m.byRole[key], groups...)
	}
	return m
}

// groupsFor returns the groups of a member holding roles (ids) in a guild whose roles are
// known (nil when they could not be loaded: only id keys then apply). The guild's @everyone role
// (id == guild id) always counts, as do the default groups.
func (m accessMap) groupsFor(guildID string, roleIDs []string, guildRoles []*discordgo.Role) []string {
	groups := slices.Clone(m.defaultGroups)
	names := make(map[string]string, len(guildRoles))
	for _, r := range guildRoles {
		names[r.ID] = strings.ToLower(r.Name)
	}
	held := roleIDs
	if guildID != "" {
		held = append([]string{guildID}, roleIDs...)
	}
	for _, id := range held {
		groups = append(groups, m.byRole[id]...)
		if name, ok := names[id]; ok {
			groups = append(groups, m.byRole[name]...)
		}
	}
	return rag.NormalizeGroups(groups)
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
func viewersOf(guildID, ownerID string, roles []*discordgo.Role, overwrites []*discordgo.PermissionOverwrite) channelViewers {
	var everyoneBase int64
	for _, r := range roles {
		if r.ID == guildID {
			everyoneBase = r.Permissions
		}
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
	sees := func(base int64, allow, deny int64) bool {
		if base&permAdministrator != 0 {
			return true
		}
		p := base
		p = (p &^ everyoneDeny) | everyoneAllow
		p = (p &^ deny) | allow
		return p&permViewChannel != 0
	}
	v.Everyone = sees(everyoneBase, 0, 0)
	for _, r := range roles {
		if r.ID == guildID {
			continue
		}
		if sees(everyoneBase|r.Permissions, roleAllow[r.ID], roleDeny[r.ID]) {
			v.Roles = append(v.Roles, r.ID)
		}
	}
	if ownerID != "" {
		v.Members = append(v.Members, ownerID)
	}
	return v
}

// audienceGroups intersects the groups of every kind of viewer. memberRoles gives the roles of
// the members listed in v.Members (a member whose roles are unknown counts with none, which can
// only narrow the result).
func (m accessMap) audienceGroups(guildID string, v channelViewers, roles []*discordgo.Role, memberRoles map[string][]string) rag.Scope {
	var sets [][]string
	if v.Everyone {
		sets = append(sets, m.groupsFor(guildID, nil, roles))
	}
	for _, r := range v.Roles {
		sets = append(sets, m.groupsFor(guildID, []string{r}, roles))
	}
	for _, id := range v.Members {
		sets = append(sets, m.groupsFor(guildID, memberRoles[id], roles))
	}
	if len(sets) == 0 {
		return rag.Scope{}
	}
	scope, err := rag.NewScope(sets[0]...)
	if err != nil {
		return rag.Scope{}
	}
	for _, s := range sets[1:] {
		other, err := rag.NewScope(s...)
		if err != nil {
			return rag.Scope{}
		}
		scope = scope.Intersect(other)
	}
	return scope
}

// isID reports whether s looks like a Discord id (digits only).
func isID(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
