package sidecar

import (
	"context"
	"testing"
)

func TestValidityResolver(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".":        "rules:\n  - match: \"archive/**\"\n    superseded: true\n",
		"prices":   "rules:\n  - match: \"list-2024.csv\"\n    valid_until: 2025-02-01\n    superseded_by: prices/list.csv\n",
		"broken":   "rules:\n  - match: x\n    superseeded: true\n", // a typo must not pass
		"archive2": "rules: [",
	}
	r := NewResolver(func(_ context.Context, dir, name string) ([]byte, bool, error) {
		if name != ValidityName {
			t.Errorf("read %s of %s, want only validity sidecars", name, dir)
		}
		data, ok := files[dir]
		return []byte(data), ok, nil
	})
	ctx := context.Background()
	if m, ok, err := r.ValidityFor(ctx, "archive/2023/travel.md"); err != nil || !ok || !m.Superseded {
		t.Errorf("archive: %+v %t %v", m, ok, err)
	}
	if m, ok, err := r.ValidityFor(ctx, "prices/list-2024.csv"); err != nil || !ok || m.SupersededBy != "prices/list.csv" || m.Until.IsZero() {
		t.Errorf("prices: %+v %t %v", m, ok, err)
	}
	if _, ok, err := r.ValidityFor(ctx, "prices/list.csv"); err != nil || ok {
		t.Errorf("an unmatched file got a mark (%t) or an error (%v)", ok, err)
	}
	for _, p := range []string{"broken/x", "archive2/a.md"} {
		if _, _, err := r.ValidityFor(ctx, p); err == nil {
			t.Errorf("%s: a sidecar that does not parse gave no error", p)
		}
	}
}
