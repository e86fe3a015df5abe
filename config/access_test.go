package config

import (
	"slices"
	"testing"
)

func TestAccessRulesGroupsFor(t *testing.T) {
	t.Parallel()
	rules := AccessRules{
		DefaultGroups: []string{"everyone"},
		Rules: []AccessRule{
			{Match: "hr/**", Groups: []string{"hr"}},
			{Match: "finance/*.csv", Groups: []string{"finance", "sales"}},
			{Match: "**/secret-?.md", Groups: []string{"board"}},
		},
	}
	if err := rules.Compile(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []string
	}{
		{"hr/salary.md", []string{"hr"}},
		{"hr/2025/bands.md", []string{"hr"}},
		{"hrx/notes.md", []string{"everyone"}},
		{"finance/prices.csv", []string{"finance", "sales"}},
		{"finance/2025/prices.csv", []string{"everyone"}},
		{"a/b/secret-1.md", []string{"board"}},
		{"secret-2.md", []string{"board"}},
		{"secret-22.md", []string{"everyone"}},
		{"./hr/x.md", []string{"hr"}},
	}
	for _, c := range cases {
		if got := rules.GroupsFor(c.path); !slices.Equal(got, c.want) {
			t.Errorf("GroupsFor(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestAccessRulesCompileErrors(t *testing.T) {
	t.Parallel()
	for _, r := range []AccessRules{
		{Rules: []AccessRule{{Match: "", Groups: []string{"a"}}}},
		{Rules: []AccessRule{{Match: "x/**"}}},
	} {
		if err := r.Compile(); err == nil {
			t.Errorf("Compile(%+v) = nil, want an error", r.Rules)
		}
	}
}
