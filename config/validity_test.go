package config

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestValidityRules(t *testing.T) {
	t.Parallel()
	var v ValidityRules
	src := "rules:\n  - match: \"archive/**\"\n    superseded: true\n  - match: \"prices/2024/*\"\n    valid_until: 2025-02-01\n    superseded_by: prices/list.csv\n"
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	if err := v.Compile(); err != nil {
		t.Fatal(err)
	}
	if m, ok := v.For("archive/2023/travel.md"); !ok || !m.Superseded {
		t.Errorf("archive: %+v %t", m, ok)
	}
	if m, ok := v.For("prices/2024/list.csv"); !ok || !m.Until.Equal(time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)) || m.SupersededBy != "prices/list.csv" {
		t.Errorf("prices: %+v %t", m, ok)
	}
	if _, ok := v.For("policies/travel.md"); ok {
		t.Error("an unmatched path got a mark")
	}
	for _, bad := range []struct{ yaml, want string }{
		{"rules:\n  - match: a/**\n", "says nothing"},
		{"rules:\n  - superseded: true\n", "match is empty"},
		{"rules:\n  - match: a\n    valid_until: next week\n", "valid_until"},
		{"rules:\n  - match: a\n    valid_from: 2025-01-01\n    valid_until: 2024-01-01\n", "before"},
	} {
		var r ValidityRules
		if err := yaml.Unmarshal([]byte(bad.yaml), &r); err != nil {
			t.Fatal(err)
		}
		if err := r.Compile(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.yaml, err, bad.want)
		}
	}
}
