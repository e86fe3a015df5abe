package mcpserver_test

import (
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
		scope, err := mcpserver.ScopeFor(access, tc.email, tc.groups)
		if tc.want == "" {
			if !errors.Is(err, rag.ErrNoScope) {
				t.Errorf("%s %v: scope %q, err %v; want ErrNoScope", tc.email, tc.groups, scope.Key(), err)
			}
			continue
		}
		if err != nil || scope.Key() != tc.want {
			t.Errorf("%s %v: scope %q, err %v; want %q", tc.email, tc.groups, scope.Key(), err, tc.want)
		}
	}
	none := bot.NewAccessMap(nil, nil, nil, nil, []string{})
	if _, err := mcpserver.ScopeFor(none, "ana@example.com", nil); err == nil || !strings.Contains(err.Error(), "empty access scope") {
		t.Fatalf("an unmapped e-mail without default groups: %v", err)
	}
}
