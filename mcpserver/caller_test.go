package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/rag"
)

func TestScopeForNarrowsNeverWidens(t *testing.T) {
	t.Parallel()
	access := bot.NewAccessMap(nil, nil, map[string][]string{"Ana@Example.com": {"hr"}},
		map[string][]string{"example.com": {"staff"}}, []string{"everyone"})
	for _, tc := range []struct {
		email  string
		groups []string
		want   string // scope key; "" means ErrNoScope
	}{
		{"ana@example.com", nil, "everyone,hr,staff"},
		{"ANA@EXAMPLE.COM", nil, "everyone,hr,staff"},
		{"ana@example.com", []string{"HR"}, "hr"},
		{"ana@example.com", []string{"hr", "finance"}, "hr"},
		{"bo@example.com", []string{"hr"}, ""},
		{"guest@other.example", nil, "everyone"},
	} {
		scope, err := mcpserver.ScopeFor(context.Background(), access, tc.email, tc.groups)
		if tc.want == "" {
			if !errors.Is(err, rag.ErrNoScope) {
				t.Errorf("%s %v: scope %q, err %v; want ErrNoScope", tc.email, tc.groups, scope.String(), err)
			}
			continue
		}
		if err != nil || scope.String() != tc.want {
			t.Errorf("%s %v: scope %q, err %v; want %q", tc.email, tc.groups, scope.String(), err, tc.want)
		}
	}
	none := bot.NewAccessMap(nil, nil, nil, nil, []string{})
	if _, err := mcpserver.ScopeFor(context.Background(), none, "ana@example.com", nil); err == nil || !strings.Contains(err.Error(), "empty access scope") {
		t.Fatalf("an unmapped e-mail without default groups: %v", err)
	}
}

// directoryFunc is a hand-written bot.Directory.
type directoryFunc func(ctx context.Context, email string) ([]string, error)

func (f directoryFunc) GroupsOf(ctx context.Context, email string) ([]string, error) {
	return f(ctx, email)
}

// TestScopeForGivesIdentityGroups: a caller's e-mail is vouched for (an admin's token, or the
// OIDC issuer), so identity groups apply as to a Slack member: the address, its domain and its
// Google Groups; a token's groups still narrow them, and a directory that cannot be read fails
// the caller instead of answering with fewer groups.
func TestScopeForGivesIdentityGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	access := bot.NewAccessMap(nil, nil, nil, nil, []string{})
	access.EmailGroups = true
	access.Directory = directoryFunc(func(_ context.Context, email string) ([]string, error) {
		if email == "down@example.com" {
			return nil, errors.New("directory unavailable")
		}
		return []string{"eng@example.com"}, nil
	})
	scope, err := mcpserver.ScopeFor(ctx, access, "Ana@Example.com", nil)
	if want := "ana@example.com,domain:example.com,eng@example.com"; err != nil || scope.String() != want {
		t.Fatalf("scope %q, err %v; want %q", scope.String(), err, want)
	}
	if scope, err := mcpserver.ScopeFor(ctx, access, "ana@example.com", []string{"eng@example.com"}); err != nil || scope.String() != "eng@example.com" {
		t.Fatalf("narrowed scope %q, err %v; want eng@example.com", scope.String(), err)
	}
	if _, err := mcpserver.ScopeFor(ctx, access, "down@example.com", nil); err == nil || errors.Is(err, rag.ErrNoScope) {
		t.Fatalf("with the directory down: %v; want its error", err)
	}
}
