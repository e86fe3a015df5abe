package discord

import (
	"slices"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

func TestAudienceScopeFromPermissions(t *testing.T) {
	t.Parallel()
	view := int64(discordgo.PermissionViewChannel)
	roles := []*discordgo.Role{
		{ID: "g", Name: "@everyone", Permissions: view},
		{ID: "hr", Name: "HR"},
		{ID: "eng", Name: "Engineering", Permissions: view},
		{ID: "adm", Name: "Admins", Permissions: int64(discordgo.PermissionAdministrator)},
	}
	role := func(id string, allow, deny int64) *discordgo.PermissionOverwrite {
		return &discordgo.PermissionOverwrite{ID: id, Type: discordgo.PermissionOverwriteTypeRole, Allow: allow, Deny: deny}
	}
	access := accessMap{roles: bot.NewAccessMap(nil,
		map[string][]string{"hr": {"hr", "staff"}, "eng": {"eng", "staff"}, "adm": {"admin", "staff", "hr", "eng"}},
		nil, nil, []string{"everyone"})}
	tests := []struct {
		name       string
		overwrites []*discordgo.PermissionOverwrite
		owner      string
		want       string // scope key
	}{
		{"open channel: what a member without roles reads", nil, "", "everyone"},
		{"hidden from @everyone, open to HR", []*discordgo.PermissionOverwrite{role("g", 0, view), role("hr", view, 0)}, "", "everyone,hr,staff"},
		{"HR and Engineering share staff", []*discordgo.PermissionOverwrite{role("g", 0, view), role("hr", view, 0), role("eng", view, 0)}, "", "everyone,staff"},
		{"Engineering's base view is cut by its deny", []*discordgo.PermissionOverwrite{role("g", 0, view), role("hr", view, 0), role("eng", 0, view)}, "", "everyone,hr,staff"},
		{"a member let in alone counts with their roles (none known)", []*discordgo.PermissionOverwrite{role("g", 0, view), role("hr", view, 0),
			{ID: "u9", Type: discordgo.PermissionOverwriteTypeMember, Allow: view}}, "", "everyone"},
		{"the owner always sees the channel", []*discordgo.PermissionOverwrite{role("g", 0, view), role("hr", view, 0)}, "u1", "everyone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := viewersOf("g", tt.owner, roles, tt.overwrites)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(v.Roles, "adm") {
				t.Errorf("administrators always see the channel: %+v", v)
			}
			got := bot.IntersectScopes(access.viewerScopes("g", v, roles, nil))
			if got.String() != tt.want {
				t.Errorf("scope %q, want %q (viewers %+v)", got.String(), tt.want, v)
			}
		})
	}
}

// TestViewersNeedTheEveryoneRole: without @everyone's permissions nobody's view can be decided.
func TestViewersNeedTheEveryoneRole(t *testing.T) {
	t.Parallel()
	roles := []*discordgo.Role{{ID: "hr", Name: "HR", Permissions: int64(discordgo.PermissionViewChannel)}}
	if v, err := viewersOf("g", "u1", roles, nil); err == nil {
		t.Errorf("viewers %+v without the @everyone role, want an error", v)
	}
}

// TestScopeForMapsRoleIDsAndNames: roles map by id; by name only when names are allowed
// (anyone with Manage Roles can copy a name: issue 22, item 9). @everyone maps by name always.
func TestScopeForMapsRoleIDsAndNames(t *testing.T) {
	t.Parallel()
	roles := []*discordgo.Role{{ID: "g", Name: "@everyone"}, {ID: "10", Name: "People Ops"}, {ID: "66", Name: "people ops"}, {ID: "67", Name: "10"}}
	tests := []struct {
		name     string
		cfg      roleMap
		names    bool
		held     []string
		rolesKnw bool
		want     string
	}{
		{"by name, names allowed", roleMap{map[string][]string{"people ops": {"hr"}}, []string{"everyone"}}, true, []string{"10"}, true, "everyone,hr"},
		{"by name, names not allowed", roleMap{map[string][]string{"people ops": {"hr"}}, []string{"everyone"}}, false, []string{"10"}, true, "everyone"},
		{"a copy of a mapped role's name", roleMap{map[string][]string{"10": {"hr"}}, []string{"everyone"}}, false, []string{"66"}, true, "everyone"},
		{"a role named like a mapped id", roleMap{map[string][]string{"10": {"hr"}}, []string{"everyone"}}, false, []string{"67"}, true, "everyone"},
		{"by id", roleMap{map[string][]string{"10": {"hr"}}, []string{"everyone"}}, false, []string{"10"}, false, "everyone,hr"},
		{"name unknown when roles cannot be read", roleMap{map[string][]string{"People Ops": {"hr"}}, []string{"everyone"}}, true, []string{"10"}, false, "everyone"},
		{"@everyone mapped, no defaults", roleMap{map[string][]string{"@everyone": {"staff"}}, []string{}}, false, nil, true, "staff"},
		{"nothing maps the member", roleMap{nil, []string{}}, false, []string{"10"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var known []*discordgo.Role
			if tt.rolesKnw {
				known = roles
			}
			if got := (accessMap{roles: bot.NewAccessMap(nil, tt.cfg.roles, nil, nil, tt.cfg.defaults), names: tt.names}).scopeFor("g", "u", tt.held, known).String(); got != tt.want {
				t.Errorf("scope %q, want %q", got, tt.want)
			}
		})
	}
}

// roleMap is the role part of an access configuration: role id or name -> groups, and the
// groups of every member.
type roleMap struct {
	roles    map[string][]string
	defaults []string
}
