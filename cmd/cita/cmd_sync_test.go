package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
)

// syncTestbed is a configuration with one folder source, "share", over a fresh schema.
type syncTestbed struct {
	root, config string
}

func newSyncTestbed(t *testing.T) *syncTestbed {
	t.Helper()
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	root := t.TempDir()
	config := writeConfig(t, `
database_url: "`+cs+`"
sources:
  - name: share
    type: folder
    folder: {path: "`+root+`", sidecars: true}
    access: {default_groups: [everyone]}
`)
	return &syncTestbed{root: root, config: config}
}

func (tb *syncTestbed) write(t *testing.T, rel, content string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(tb.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// run runs cita with the testbed's configuration and returns its exit code and output.
func (tb *syncTestbed) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"--config", tb.config}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSyncAndSourcesReportWithheldDocuments(t *testing.T) {
	tb := newSyncTestbed(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tb.write(t, "hr/.cita-access.yaml", "default_groups: [hr]\n", t0)
	tb.write(t, "hr/salarios.md", "# Salarios\n\nBanda quetzal.\n", t0)
	tb.write(t, "guia.md", "# Guía\n\nPlataforma jaguar.\n", t0)
	if code, out, errOut := tb.run(t, "sync"); code != 0 {
		t.Fatalf("first sync: exit %d\n%s%s", code, out, errOut)
	}
	tb.write(t, "hr/.cita-access.yaml", "default_groups: [hr\n", t0.Add(time.Hour))
	code, out, errOut := tb.run(t, "sync")
	if code != 0 || !strings.Contains(out, "withheld 1") ||
		!strings.Contains(errOut, "hr/salarios.md: withheld, readable by nobody until its access resolves: access sidecar hr/.cita-access.yaml") {
		t.Fatalf("sync with a broken sidecar: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tb.run(t, "sources")
	if code != 0 || !strings.Contains(out, "withheld 1") || !strings.Contains(out, "share: 1 documents withheld") ||
		!strings.Contains(out, "hr/salarios.md (since ") {
		t.Fatalf("sources: exit %d\n%s%s", code, out, errOut)
	}
}

func TestSyncHoldsBackAMassDeletionUntilConfirmed(t *testing.T) {
	tb := newSyncTestbed(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		tb.write(t, "docs/"+name, "# "+name+"\n\nTexto.\n", t0)
	}
	if code, out, errOut := tb.run(t, "sync"); code != 0 {
		t.Fatalf("first sync: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.RemoveAll(filepath.Join(tb.root, "docs")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tb.run(t, "sync")
	if code != 1 || !strings.Contains(out, "5 deletions held back") || !strings.Contains(errOut, "share: mass deletion held back: the listing of share would delete 5 of its 5 indexed documents (all of them)") ||
		!strings.Contains(errOut, "cita sync --source share --allow-mass-delete") {
		t.Fatalf("sync of the emptied share: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := tb.run(t, "sources"); code != 0 || !strings.Contains(out, "DELETIONS HELD BACK 5") {
		t.Fatalf("sources after the held-back pass: exit %d\n%s", code, out)
	}
	if code, _, errOut := tb.run(t, "sync", "--allow-mass-delete"); code == 0 || !strings.Contains(errOut, "give --source NAME") {
		t.Fatalf("--allow-mass-delete without --source: exit %d\n%s", code, errOut)
	}
	code, out, errOut = tb.run(t, "sync", "--source", "share", "--allow-mass-delete")
	if code != 0 || !strings.Contains(out, "deleted 5") {
		t.Fatalf("confirmed sync: exit %d\n%s%s", code, out, errOut)
	}
}
