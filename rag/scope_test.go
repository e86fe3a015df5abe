package rag_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestScopeKeyUnambiguous is the regression test of issue 12, finding 7: NewScope("a,b") and
// NewScope("a", "b") gave the same cache key. A name with a separator in it is now refused, and
// keys are length-prefixed, so two different scopes never share a key.
func TestScopeKeyUnambiguous(t *testing.T) {
	t.Parallel()
	two := rag.MustScope("a", "b")
	if one, err := rag.NewScope("a,b"); err == nil && one.Key() == two.Key() {
		t.Fatalf(`NewScope("a,b") and NewScope("a", "b") share the key %q`, two.Key())
	}
	if _, err := rag.NewScope("a,b"); !errors.Is(err, rag.ErrInvalidGroup) || !strings.Contains(err.Error(), `"a,b"`) {
		t.Fatalf(`NewScope("a,b") error = %v; want ErrInvalidGroup naming the group`, err)
	}
	// Keys of random valid scopes are equal exactly when their groups are, even for names built
	// to look like the joins of others.
	names := []string{"a", "b", "ab", "a.b", "a:b", "b:a", "3:a", "1:a", "a@b", "everyone", "domain:a.b"}
	rng := rand.New(rand.NewPCG(7, 12))
	byKey := map[string][]string{}
	for range 2000 {
		var groups []string
		for _, n := range names {
			if rng.IntN(3) == 0 {
				groups = append(groups, n)
			}
		}
		if len(groups) == 0 {
			continue
		}
		s := rag.MustScope(groups...)
		if prev, ok := byKey[s.Key()]; ok && !slices.Equal(prev, s.Groups()) {
			t.Fatalf("scopes %v and %v share the key %q", prev, s.Groups(), s.Key())
		}
		byKey[s.Key()] = s.Groups()
	}
}

func TestGroupNames(t *testing.T) {
	t.Parallel()
	valid := []string{
		"everyone", "hr", "hr-managers", "eng_leads", "alice@example.com", "Alice@Example.COM", " eng ",
		"domain:example.com", "o'brien@example.com", "first.last+tag@sub.example.co.uk", "all-staff@example.com",
		"group-7", strings.Repeat("x", rag.MaxGroupLen),
	}
	for _, g := range valid {
		if err := rag.ValidateGroup(g); err != nil {
			t.Errorf("ValidateGroup(%q) = %v; want valid", g, err)
		}
		if _, err := rag.NewScope(g); err != nil {
			t.Errorf("NewScope(%q) = %v", g, err)
		}
	}
	invalid := []string{
		"a,b", "a b", "a\tb", "ventas-españa", "\x00fall-through", "eng;drop", `"hr"`, "a\nb", "ﬁnance",
		"еveryone", // Cyrillic е
		strings.Repeat("x", rag.MaxGroupLen+1), "",
	}
	for _, g := range invalid {
		err := rag.ValidateGroup(g)
		if !errors.Is(err, rag.ErrInvalidGroup) {
			t.Errorf("ValidateGroup(%q) = %v; want ErrInvalidGroup", g, err)
		}
	}
	if _, err := rag.CleanGroups([]string{"everyone", "bad name"}); !errors.Is(err, rag.ErrInvalidGroup) || !strings.Contains(err.Error(), `"bad name"`) {
		t.Errorf("CleanGroups with a bad name = %v; want ErrInvalidGroup naming it", err)
	}
	if _, err := rag.CleanGroups([]string{" ", ""}); !errors.Is(err, rag.ErrNoScope) {
		t.Errorf("CleanGroups of blanks = %v; want ErrNoScope", err)
	}
	got, err := rag.CleanGroups([]string{"HR", "everyone", "hr", " Alice@Example.com"})
	if err != nil || !slices.Equal(got, []string{"alice@example.com", "everyone", "hr"}) {
		t.Errorf("CleanGroups = %v, %v", got, err)
	}
}

func TestIdentityGroupNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		email, group, domain string
		ok                   bool
	}{
		{"Alice@Example.com", "alice@example.com", "domain:example.com", true},
		{" bob.smith+x@sub.example.org ", "bob.smith+x@sub.example.org", "domain:sub.example.org", true},
		{"no-at-sign", "", "", false},
		{"@example.com", "", "", false},
		{"alice@", "", "", false},
		{"a@b@example.com", "", "", false},
		{"al ice@example.com", "", "", false},
		{"josé@example.com", "", "", false},
	}
	for _, tc := range tests {
		g, err := rag.EmailGroup(tc.email)
		d, derr := rag.EmailDomainGroup(tc.email)
		if tc.ok != (err == nil) || tc.ok != (derr == nil) || g != tc.group || d != tc.domain {
			t.Errorf("EmailGroup(%q) = %q, %v; EmailDomainGroup = %q, %v; want %q, %q (ok %v)", tc.email, g, err, d, derr, tc.group, tc.domain, tc.ok)
		}
	}
	if d, err := rag.DomainGroup("Example.COM"); err != nil || d != "domain:example.com" {
		t.Errorf("DomainGroup = %q, %v", d, err)
	}
}

func TestScopeKeyGroupsReadsTheKeyBack(t *testing.T) {
	t.Parallel()
	for _, groups := range [][]string{{"everyone"}, {"eng", "hr"}, {"domain:example.com", "o'brien@example.com", "3:x"}} {
		s := rag.MustScope(groups...)
		got, err := rag.ScopeKeyGroups(s.Key())
		if err != nil || !slices.Equal(got, s.Groups()) {
			t.Errorf("ScopeKeyGroups(%q) = %v, %v; want %v", s.Key(), got, err, s.Groups())
		}
	}
	for _, bad := range []string{"", "3:ab", "x:abc", "2:ab;", "2:ab3:abc", "-1:"} {
		if g, err := rag.ScopeKeyGroups(bad); err == nil {
			t.Errorf("ScopeKeyGroups(%q) = %v, want an error", bad, g)
		}
	}
}
