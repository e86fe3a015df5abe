package syncrun_test

import (
	"archive/zip"
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// writeFile writes content under root and sets its mtime, so that size+mtime fingerprints change
// deterministically between steps.
func writeFile(t *testing.T, root, rel, content string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
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

// minimalDOCX returns a .docx holding one paragraph.
func minimalDOCX(t *testing.T, text string) string {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:body></w:document>`))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func folderSource(t testing.TB, root string, rules config.AccessRules, sidecars bool) syncrun.Source {
	t.Helper()
	f, err := source.NewFolder(config.SourceConfig{Name: "share", Type: "folder", Access: rules,
		Folder: config.FolderSource{Path: root, Sidecars: sidecars}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return syncrun.Source{Name: "share", Connector: f}
}

type counts struct{ listed, added, changed, unchanged, deleted, aclOnly, failed int }

func countsOf(r syncrun.Run) counts {
	return counts{r.Listed, r.Added, r.Changed, r.Unchanged, r.Deleted, r.ACLOnly, r.Failed}
}

// TestFolderSync walks one shared folder through a life: first index, re-sync, edit, touch,
// rename, delete, permission changes by rule and by sidecar, and a file that cannot be read.
func TestFolderSync(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	root := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	writeFile(t, root, "handbook/vacaciones.md", "# Vacaciones\n\nCada persona tiene 22 días hábiles de vacaciones al año.\n", t0)
	writeFile(t, root, "hr/salarios.md", "# Salarios\n\nLa revisión salarial ocurre en marzo, banda quetzal.\n", t0)
	writeFile(t, root, "notes.txt", "Kickoff notes: the wombat project starts in April.\n", t0)
	writeFile(t, root, "legal/contrato.docx", minimalDOCX(t, "Contrato marco con el proveedor zafiro."), t0)
	rules := config.AccessRules{DefaultGroups: []string{"everyone"}, Rules: []config.AccessRule{{Match: "hr/**", Groups: []string{"hr"}}}}
	src := folderSource(t, root, rules, true)
	everyone := rag.MustScope("everyone")

	step := func(name string, src syncrun.Source, want counts) (syncrun.Result, int64) {
		t.Helper()
		before := ix.Embedder.Texts()
		res := ix.MustRun(t, src, syncrun.RunOptions{})
		if got := countsOf(res.Run); got != want {
			t.Fatalf("%s: counts %+v, want %+v (failures %v)", name, got, want, res.Failures)
		}
		return res, ix.Embedder.Texts() - before
	}

	_, embedded := step("first index", src, counts{listed: 4, added: 4})
	if embedded == 0 {
		t.Fatal("first index embedded nothing")
	}
	docs := ix.Docs(t, "share")
	if !slices.Equal(docs["hr/salarios.md"].Groups, []string{"hr"}) || !slices.Equal(docs["notes.txt"].Groups, []string{"everyone"}) {
		t.Fatalf("groups from rules: %v / %v", docs["hr/salarios.md"].Groups, docs["notes.txt"].Groups)
	}

	if _, embedded := step("re-sync", src, counts{listed: 4, unchanged: 4}); embedded != 0 {
		t.Fatalf("re-sync of unchanged files embedded %d texts", embedded)
	}

	writeFile(t, root, "notes.txt", "Kickoff notes: the wombat project starts in May, not April.\n", t0.Add(time.Hour))
	step("edit", src, counts{listed: 4, changed: 1, unchanged: 3})
	after := ix.Docs(t, "share")
	if after["notes.txt"].Version <= docs["notes.txt"].Version || after["notes.txt"].ContentHash == docs["notes.txt"].ContentHash {
		t.Fatalf("edit did not bump version/hash: %+v -> %+v", docs["notes.txt"], after["notes.txt"])
	}

	// Touched, same bytes: the fingerprint differs, the content hash says unchanged.
	if err := os.Chtimes(filepath.Join(root, "notes.txt"), t0.Add(2*time.Hour), t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, embedded := step("touch", src, counts{listed: 4, unchanged: 4}); embedded != 0 {
		t.Fatalf("touch re-embedded %d texts", embedded)
	}

	if err := os.Rename(filepath.Join(root, "handbook/vacaciones.md"), filepath.Join(root, "handbook/vacaciones-2026.md")); err != nil {
		t.Fatal(err)
	}
	step("rename", src, counts{listed: 4, added: 1, deleted: 1, unchanged: 3})
	if _, ok := ix.Docs(t, "share")["handbook/vacaciones.md"]; ok {
		t.Fatal("old name still indexed after rename")
	}

	wombat := ix.Docs(t, "share")["notes.txt"].ID
	if !ix.Answerable(t, "wombat project", everyone, wombat) {
		t.Fatal("notes.txt not found before deletion")
	}
	if err := os.Remove(filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	step("delete", src, counts{listed: 3, deleted: 1, unchanged: 3})
	if ix.Answerable(t, "wombat project", everyone, wombat) {
		t.Fatal("deleted file still answers after one run")
	}

	// Permission change by rule: groups change on document and chunks, nothing is re-embedded.
	rules.Rules = append(rules.Rules, config.AccessRule{Match: "handbook/**", Groups: []string{"staff"}})
	src = folderSource(t, root, rules, true)
	before := ix.Docs(t, "share")["handbook/vacaciones-2026.md"]
	if _, embedded := step("rule change", src, counts{listed: 3, aclOnly: 1, unchanged: 2}); embedded != 0 {
		t.Fatalf("permission change re-embedded %d texts", embedded)
	}
	now := ix.Docs(t, "share")["handbook/vacaciones-2026.md"]
	if !slices.Equal(now.Groups, []string{"staff"}) || now.Version <= before.Version || now.ContentHash != before.ContentHash {
		t.Fatalf("after rule change: %+v (before %+v)", now, before)
	}
	if ix.Answerable(t, "vacaciones días hábiles", everyone, now.ID) || !ix.Answerable(t, "vacaciones días hábiles", rag.MustScope("staff"), now.ID) {
		t.Fatal("search does not follow the new groups")
	}

	// Permission change by sidecar: the nearest .cita-access.yaml wins over the source's rules.
	writeFile(t, root, "hr/"+source.SidecarName, "default_groups: [hr-managers]\nrules:\n  - match: \"public/**\"\n    groups: [everyone]\n", t0)
	if _, embedded := step("sidecar", src, counts{listed: 3, aclOnly: 1, unchanged: 2}); embedded != 0 {
		t.Fatalf("sidecar change re-embedded %d texts", embedded)
	}
	if g := ix.Docs(t, "share")["hr/salarios.md"].Groups; !slices.Equal(g, []string{"hr-managers"}) {
		t.Fatalf("sidecar groups: %v", g)
	}
	assertChunkGroupsMatch(t, ix)

	// A file that cannot be read (corrupt here; unreadable permissions when not root): the
	// failure is recorded with its reason and the previous version stays searchable.
	prev := ix.Docs(t, "share")["legal/contrato.docx"]
	writeFile(t, root, "legal/contrato.docx", "this is not a zip archive", t0.Add(3*time.Hour))
	res, _ := step("unreadable", src, counts{listed: 3, unchanged: 2, failed: 1})
	if res.Run.Error == "" || !strings.Contains(res.Run.Error, "legal/contrato.docx") {
		t.Fatalf("run error does not name the failed file: %q", res.Run.Error)
	}
	fails, err := ix.Runner.History().Failures(context.Background(), res.Run.ID)
	if err != nil || len(fails) != 1 || fails[0].ExternalID != "legal/contrato.docx" || fails[0].Reason == "" {
		t.Fatalf("recorded failures %+v, %v", fails, err)
	}
	if kept := ix.Docs(t, "share")["legal/contrato.docx"]; kept.Version != prev.Version || kept.ContentHash != prev.ContentHash {
		t.Fatalf("failed file's previous version replaced: %+v -> %+v", prev, kept)
	}
	if !ix.Answerable(t, "contrato proveedor zafiro", everyone, prev.ID) {
		t.Fatal("previous version of the failed file no longer answers")
	}
	if os.Getuid() != 0 {
		p := filepath.Join(root, "hr/salarios.md")
		writeFile(t, root, "hr/salarios.md", "# Salarios\n\nNueva banda.\n", t0.Add(4*time.Hour))
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		step("permission denied", src, counts{listed: 3, unchanged: 1, failed: 2})
	}
}

// assertChunkGroupsMatch checks the index is consistent: every document has chunks, and every
// chunk carries its document's groups.
func assertChunkGroupsMatch(t *testing.T, ix *synctest.Index) {
	t.Helper()
	var bad int
	err := ix.Store.Pool().QueryRow(context.Background(), `
		SELECT count(*) FROM documents d
		WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)
		   OR EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.groups <> d.groups)`).Scan(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d documents without chunks or with chunks of other groups", bad)
	}
}
