package bot_test

import (
	"slices"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

func TestAccessMapGroups(t *testing.T) {
	t.Parallel()
	m := bot.NewAccessMap(
		map[string][]string{"U0ADMIN": {"admins"}},
		map[string][]string{"@HR-Team": {"hr"}, "S0ENG": {"engineering"}},
		map[string][]string{"CFO@Example.com": {"finance"}},
		map[string][]string{"example.com": {"staff"}},
		[]string{"everyone"},
	)
	tests := []struct {
		name string
		id   bot.Identity
		want []string
	}{
		{"default only", bot.Identity{UserID: "U1", Email: "ana@other.org"}, []string{"everyone"}},
		{"domain", bot.Identity{UserID: "U1", Email: "ana@example.com"}, []string{"everyone", "staff"}},
		{"email is case-insensitive", bot.Identity{UserID: "U1", Email: "cfo@EXAMPLE.com"}, []string{"everyone", "finance", "staff"}},
		{"user id and roles", bot.Identity{UserID: "u0admin", Roles: []string{"hr-team", "S0ENG"}}, []string{"admins", "engineering", "everyone", "hr"}},
		{"guest gets no default", bot.Identity{UserID: "U9", Email: "x@partner.com", Guest: true}, nil},
		{"guest keeps explicit groups", bot.Identity{UserID: "U9", Email: "x@example.com", Guest: true}, []string{"staff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := m.Groups(tt.id); !slices.Equal(got, tt.want) {
				t.Fatalf("Groups = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := m.Scope(bot.Identity{UserID: "U9", Guest: true}); err == nil {
		t.Fatal("an unmapped guest got a scope")
	}
}

func TestIntersectScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		scopes []rag.Scope
		want   string
	}{
		{"none", nil, ""},
		{"one", []rag.Scope{rag.MustScope("hr", "everyone")}, "everyone,hr"},
		{"common", []rag.Scope{rag.MustScope("hr", "everyone"), rag.MustScope("everyone", "eng")}, "everyone"},
		{"member without groups", []rag.Scope{rag.MustScope("hr"), {}}, ""},
		{"disjoint", []rag.Scope{rag.MustScope("hr"), rag.MustScope("eng")}, ""},
	}
	for _, tt := range tests {
		if got := bot.IntersectScopes(tt.scopes).String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTTLCacheExpiresAndDeletes(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	c := bot.NewTTLCache[string](time.Minute, func() time.Time { return now })
	c.Set("C1", "everyone")
	if v, ok := c.Get("C1"); !ok || v != "everyone" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	now = now.Add(59 * time.Second)
	if _, ok := c.Get("C1"); !ok {
		t.Fatal("expired early")
	}
	now = now.Add(time.Second)
	if _, ok := c.Get("C1"); ok {
		t.Fatal("still there after the ttl")
	}
	c.Set("C2", "hr")
	c.Delete("C2")
	if _, ok := c.Get("C2"); ok {
		t.Fatal("still there after Delete")
	}
}
