package syncrun_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestFolderValiditySidecarFailsClosed: a document under a validity sidecar that does not parse
// is not current (a broken sidecar must never make an archived document current); once the
// sidecar is fixed, the next pass makes it current again, and a rule change alone re-indexes.
func TestFolderValiditySidecarFailsClosed(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	root := t.TempDir()
	mtime := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	writeFile(t, root, "old/policy.md", "# Policy\n\nThe armadillo rule applies.\n", mtime)
	writeFile(t, root, "old/.cita-validity.yaml", "rules: [", mtime)
	f, err := source.NewFolder(config.SourceConfig{Name: "share", Type: "folder",
		Folder: config.FolderSource{Path: root, Sidecars: true}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	src := syncrun.Source{Name: "share", Connector: f}
	ix.MustRun(t, src, syncrun.RunOptions{})
	id := ix.Docs(t, "share")["old/policy.md"].ID
	scope := rag.MustScope("everyone")
	if via := ix.VisibleVia(t, "armadillo rule", scope, id); len(via) != 0 {
		t.Fatalf("under a broken validity sidecar the document is current via %v", via)
	}
	writeFile(t, root, "old/.cita-validity.yaml", "rules:\n  - match: \"other.md\"\n    superseded: true\n", mtime)
	ix.MustRun(t, src, syncrun.RunOptions{})
	if !ix.Answerable(t, "armadillo rule", scope, id) {
		t.Fatal("with the sidecar fixed (no rule for it), the document is still not current")
	}
	writeFile(t, root, "old/.cita-validity.yaml", "rules:\n  - match: \"policy.md\"\n    superseded: true\n", mtime)
	if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Changed != 1 {
		t.Fatalf("a new rule marking the document re-indexed %d documents; want 1", res.Run.Changed)
	}
	if ix.Answerable(t, "armadillo rule", scope, id) {
		t.Fatal("a document a sidecar marks superseded is still current")
	}
}
