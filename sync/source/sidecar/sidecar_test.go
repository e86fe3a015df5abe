package sidecar

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/citahq/cita/rag"
)

func TestFallThrough(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"legal":        "default_groups: [legal]\n",
		"legal/public": "rules: [{match: \"*.md\", groups: [everyone]}]\n",
		"broken":       "default_groups: [a\n",
		"empty":        "",
		"badname":      "rules: [{match: \"*.md\", groups: [\"hr,board\"]}]\n",
	}
	reads := map[string]int{}
	r := NewResolver(func(_ context.Context, dir, name string) ([]byte, bool, error) {
		if name != Name {
			t.Errorf("read %s of %s, want only access sidecars", name, dir)
		}
		reads[dir]++
		if dir == "offline" {
			return nil, false, errors.New("connection refused")
		}
		data, ok := files[dir]
		return []byte(data), ok, nil
	})
	for _, tc := range []struct {
		rel     string
		want    []string
		wantErr bool
	}{
		{"legal/contrato.md", []string{"legal"}, false},
		{"legal/public/aviso.md", []string{"everyone"}, false},
		{"legal/public/anexo.pdf", []string{"legal"}, false}, // no match, no default: falls through
		{"other/nota.md", nil, false},
		{"empty/nota.md", nil, false},
		{"broken/deep/nota.md", nil, true},
		{"broken/other.md", nil, true},
		{"offline/nota.md", nil, true}, // cannot tell whether a sidecar exists: unknown, not none
		{"badname/nota.md", nil, true}, // an invalid group name: the sidecar is refused
	} {
		got, err := r.GroupsFor(context.Background(), tc.rel)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("GroupsFor(%s) = %v, %v; want %v (error %v)", tc.rel, got, err, tc.want, tc.wantErr)
		}
	}
	for dir, n := range reads {
		if n != 1 {
			t.Errorf("sidecar of %s read %d times, want once", dir, n)
		}
	}
}

// FuzzParse feeds arbitrary files to the sidecar parser: it must not panic, and a parsed
// sidecar never yields an empty group list for a path it claims.
func FuzzParse(f *testing.F) {
	f.Add([]byte("default_groups: [hr]\nrules: [{match: \"a/**\", groups: [x]}]\n"))
	f.Add([]byte("rules:\n  - match: \"**\"\n    groups: []\n"))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := parse(data)
		if err != nil || sc == nil {
			return
		}
		for _, rel := range []string{"a/b.md", "x.md", "deep/er/file.txt"} {
			g := sc.rules.GroupsFor(rel)
			if len(g) == 0 {
				t.Fatalf("sidecar %q gives %s no groups", data, rel)
			}
			if len(g) == 1 && g[0] == fallThrough {
				continue
			}
			if _, err := rag.CleanGroups(g); err != nil {
				t.Fatalf("sidecar %q gives %s the groups %q: %v", data, rel, g, err)
			}
		}
	})
}
