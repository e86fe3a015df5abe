package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/citahq/cita/rag"
)

// Identity is what a platform says about a user, for the access mapping.
type Identity struct {
	UserID string
	Email  string
	// EmailVerified says the platform vouches for Email (Slack returns an address only when it
	// is the account's confirmed one). Only a verified address gives identity groups.
	EmailVerified bool
	// DirectoryGroups are the groups the directory lists the verified address in (Google
	// Groups, by their e-mail address); AccessMap.Resolve fills them.
	DirectoryGroups []string
	// Roles are platform group memberships: Slack user group ids and handles, Discord role ids.
	Roles []string
	// Guest marks users from outside the organisation (Slack guests and Slack Connect users):
	// they get only explicitly mapped groups, never the default ones.
	Guest bool
	// Bot marks bots and apps; channel scopes ignore them.
	Bot bool
}

// AccessMap maps platform identities to access groups. Every map is keyed case-insensitively.
// A user's groups are the union of every matching entry plus Default (for non-guests), plus
// their identity groups when EmailGroups or Directory is set.
type AccessMap struct {
	Users   map[string][]string // platform user id -> groups
	Roles   map[string][]string // user group / role id or handle -> groups
	Emails  map[string][]string // exact e-mail address -> groups
	Domains map[string][]string // e-mail domain ("example.com") -> groups
	Default []string            // groups of every member who is not a guest
	// EmailGroups gives a verified address its own group ("alice@example.com") and, to a
	// non-guest, its domain's ("domain:example.com"): the names the Google Drive connector gives
	// user and domain permissions (rag.EmailGroup, rag.EmailDomainGroup).
	EmailGroups bool
	// Directory, when set, adds the groups a verified address belongs to (Resolve).
	Directory Directory
}

// Directory looks up the groups an e-mail address belongs to: Google Groups read from the Admin
// SDK Directory API and kept in the database (sync/directory), named by their e-mail address as
// Drive permissions name them.
type Directory interface {
	// GroupsOf returns the groups of email, directly or through nested groups; none for an
	// unknown address. It returns an error when the directory cannot be read.
	GroupsOf(ctx context.Context, email string) ([]string, error)
}

// Resolve returns id with its DirectoryGroups looked up, when the map has a Directory and id has
// a verified address; adapters call it once when they build an identity, before Groups. Names
// that are not valid groups are dropped (they could only narrow access). It returns an error when
// the directory cannot be read: the caller then fails the request rather than guess.
func (m *AccessMap) Resolve(ctx context.Context, id Identity) (Identity, error) {
	id.DirectoryGroups = nil
	if m.Directory == nil || !id.EmailVerified || strings.TrimSpace(id.Email) == "" {
		return id, nil
	}
	groups, err := m.Directory.GroupsOf(ctx, id.Email)
	if err != nil {
		return Identity{}, fmt.Errorf("directory groups of %s: %w", id.UserID, err)
	}
	for _, g := range groups {
		if rag.ValidateGroup(g) == nil {
			id.DirectoryGroups = append(id.DirectoryGroups, g)
		}
	}
	return id, nil
}

// NewAccessMap returns an AccessMap with normalized keys.
func NewAccessMap(users, roles, emails, domains map[string][]string, defaults []string) *AccessMap {
	return &AccessMap{
		Users: lowerKeys(users), Roles: lowerKeys(roles), Emails: lowerKeys(emails),
		Domains: lowerKeys(domains), Default: rag.NormalizeGroups(defaults),
	}
}

func lowerKeys(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		k = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "@")))
		out[k] = append(out[k], v...)
	}
	return out
}

// Groups returns the identity's access groups, sorted; empty when nothing maps it.
func (m *AccessMap) Groups(id Identity) []string {
	var groups []string
	groups = append(groups, m.Users[strings.ToLower(id.UserID)]...)
	for _, r := range id.Roles {
		groups = append(groups, m.Roles[strings.ToLower(strings.TrimPrefix(r, "@"))]...)
	}
	if email := strings.ToLower(strings.TrimSpace(id.Email)); email != "" {
		groups = append(groups, m.Emails[email]...)
		if at := strings.LastIndexByte(email, '@'); at >= 0 {
			groups = append(groups, m.Domains[email[at+1:]]...)
		}
	}
	if !id.Guest {
		groups = append(groups, m.Default...)
	}
	groups = append(groups, m.identityGroups(id)...)
	return rag.NormalizeGroups(groups)
}

// identityGroups returns the groups id's verified address gives: the address, its domain (not
// for guests, who are not of the organisation whatever their address says) and its directory
// groups. An address that makes no valid group gives none.
func (m *AccessMap) identityGroups(id Identity) []string {
	if !id.EmailVerified {
		return nil
	}
	var out []string
	if m.EmailGroups {
		if g, err := rag.EmailGroup(id.Email); err == nil {
			out = append(out, g)
			if d, err := rag.EmailDomainGroup(id.Email); err == nil && !id.Guest {
				out = append(out, d)
			}
		}
	}
	return append(out, id.DirectoryGroups...)
}

// Scope returns the identity's scope, or rag.ErrNoScope when no group maps it.
func (m *AccessMap) Scope(id Identity) (rag.Scope, error) {
	return rag.NewScope(m.Groups(id)...)
}

// IntersectScopes returns the groups every scope holds: the scope of a reply that all the
// members of a channel see. It is empty when scopes is empty or any member has no group.
func IntersectScopes(scopes []rag.Scope) rag.Scope {
	if len(scopes) == 0 {
		return rag.Scope{}
	}
	out := scopes[0]
	for _, s := range scopes[1:] {
		out = out.Intersect(s)
	}
	return out
}
