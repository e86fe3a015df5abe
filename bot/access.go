package bot

import (
	"strings"

	"github.com/citahq/cita/rag"
)

// Identity is what a platform says about a user, for the access mapping.
type Identity struct {
	UserID string
	Email  string
	// Roles are platform group memberships: Slack user group ids and handles, Discord role ids.
	Roles []string
	// Guest marks users from outside the organisation (Slack guests and Slack Connect users):
	// they get only explicitly mapped groups, never the default ones.
	Guest bool
	// Bot marks bots and apps; channel scopes ignore them.
	Bot bool
}

// AccessMap maps platform identities to access groups. Every map is keyed case-insensitively.
// A user's groups are the union of every matching entry plus Default (for non-guests).
type AccessMap struct {
	Users   map[string][]string // platform user id -> groups
	Roles   map[string][]string // user group / role id or handle -> groups
	Emails  map[string][]string // exact e-mail address -> groups
	Domains map[string][]string // e-mail domain ("example.com") -> groups
	Default []string            // groups of every member who is not a guest
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
	return rag.NormalizeGroups(groups)
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
