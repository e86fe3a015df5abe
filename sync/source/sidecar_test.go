package source

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/citahq/cita/rag"
)

func TestSidecarFallThrough(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("legal/"+SidecarName, "default_groups: [legal]\n")
	write("legal/public/"+SidecarName, "rules: [{match: \"*.md\", groups: [everyone]}]\n")
	write("broken/"+SidecarName, "default_groups: [a\n")
	write("empty/"+SidecarName, "")
	write("badname/"+SidecarName, "rules: [{match: \"*.md\", groups: [\"hr,board\"]}]\n")
	c := &sidecarCache{root: root, byDir: map[string]*sidecar{}}
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
		{"badname/nota.md", nil, true}, // an invalid group name: the sidecar is refused
	} {
		got, err := c.groupsFor(tc.rel)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("groupsFor(%s) = %v, %v; want %v (error %v)", tc.rel, got, err, tc.want, tc.wantErr)
		}
	}
}

// FuzzSidecar feeds arbitrary files to the sidecar parser: it must not panic, and a parsed
// sidecar never yields an empty group list for a path it claims.
func FuzzSidecar(f *testing.F) {
	f.Add([]byte("default_groups: [hr]\nrules: [{match: \"a/**\", groups: [x]}]\n"))
	f.Add([]byte("rules:\n  - match: \"**\"\n    groups: []\n"))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), SidecarName)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := readSidecar(p)
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
