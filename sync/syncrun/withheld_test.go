package syncrun_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestFolderUnresolvableAccessIsWithheld breaks the sidecar that gives hr/ its groups: the
// documents under it must become unsearchable at once on every path (both arms, LoadHits, the
// hybrid search, a cached answer citing them), keep their chunks, and come back without
// re-embedding when the sidecar parses again.
func TestFolderUnresolvableAccessIsWithheld(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	root := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	writeFile(t, root, "hr/"+source.SidecarName, "default_groups: [hr]\n", t0)
	writeFile(t, root, "hr/salarios.md", "# Salarios\n\nLa revisión salarial usa la banda quetzal.\n", t0)
	writeFile(t, root, "handbook/guia.md", "# Guía\n\nEl proceso de compras usa la plataforma jaguar.\n", t0)
	rules := config.AccessRules{DefaultGroups: []string{"everyone"}}
	src := folderSource(t, root, rules, true)
	ix.MustRun(t, src, syncrun.RunOptions{})

	const query = "revisión salarial banda quetzal"
	hr := rag.MustScope("hr")
	doc := ix.Docs(t, "share")["hr/salarios.md"]
	if via := ix.VisibleVia(t, query, hr, doc.ID); len(via) != 4 {
		t.Fatalf("before: hr reaches the document only via %v", via)
	}
	key := ix.CacheAnswerCiting(t, query, hr, doc.ID)
	if !ix.CachedAnswer(t, key) {
		t.Fatal("the cached answer is not served before the sidecar breaks")
	}
	chunks := len(ix.ChunkIDs(t, doc.ID))

	// The sidecar no longer parses: its subtree's access is unknown. A new file lands there too.
	writeFile(t, root, "hr/"+source.SidecarName, "default_groups: [hr\n", t0.Add(time.Hour))
	writeFile(t, root, "hr/bonus.md", "# Bonus\n\nEl bono anual usa la tabla cóndor.\n", t0.Add(time.Hour))
	res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
	if err != nil {
		t.Fatalf("run with a broken sidecar: %v", err)
	}
	if res.Run.Withheld != 2 || len(res.Withheld) != 2 || res.Run.Added != 0 || res.Run.Failed != 0 {
		t.Fatalf("run with a broken sidecar: %+v, withheld %v", res.Run, res.Withheld)
	}
	for _, w := range res.Withheld {
		if !strings.Contains(w.Reason, "hr/.cita-access.yaml") {
			t.Errorf("withheld %s with reason %q, which does not name the sidecar", w.ExternalID, w.Reason)
		}
	}
	if !strings.Contains(res.Run.Error, "2 documents withheld") {
		t.Errorf("run error %q does not report the withheld documents", res.Run.Error)
	}
	recorded, err := ix.Runner.History().Failures(context.Background(), res.Run.ID)
	if err != nil || len(recorded) != 2 || recorded[0].Kind != syncrun.KindWithheld || recorded[0].Reason == "" {
		t.Fatalf("recorded withheld documents %+v, %v", recorded, err)
	}
	if _, ok := ix.Docs(t, "share")["hr/bonus.md"]; ok {
		t.Error("a new document with unresolvable access was indexed")
	}
	withheld, err := ix.Store.Withheld(context.Background(), "share")
	if err != nil || len(withheld) != 1 || withheld[0].ExternalID != "hr/salarios.md" || withheld[0].Reason == "" {
		t.Fatalf("store's withheld documents %+v, %v", withheld, err)
	}
	if d := ix.Docs(t, "share")["hr/salarios.md"]; d.AccessError == "" || len(d.Groups) != 0 || d.Version <= doc.Version {
		t.Fatalf("withheld document state %+v", d)
	}
	// A second pass with the sidecar still broken changes nothing more.
	version := ix.Docs(t, "share")["hr/salarios.md"].Version
	if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Withheld != 2 || ix.Docs(t, "share")["hr/salarios.md"].Version != version {
		t.Fatalf("second pass over the broken sidecar: %+v, version %d -> %d", res.Run, version, ix.Docs(t, "share")["hr/salarios.md"].Version)
	}
	for _, scope := range []rag.Scope{hr, rag.MustScope("everyone"), rag.MustScope("hr", "everyone")} {
		if via := ix.VisibleVia(t, query, scope, doc.ID); len(via) > 0 {
			t.Errorf("document with unresolvable access still reaches %v via %v", scope.Groups(), via)
		}
	}
	if ix.CachedAnswer(t, key) {
		t.Error("a cached answer citing the withheld document is still served")
	}
	if n := len(ix.ChunkIDs(t, doc.ID)); n != chunks {
		t.Errorf("withholding changed the chunks: %d -> %d", chunks, n)
	}
	if guia := ix.Docs(t, "share")["handbook/guia.md"]; len(ix.VisibleVia(t, "plataforma jaguar", rag.MustScope("everyone"), guia.ID)) == 0 {
		t.Error("a document outside the broken sidecar's subtree was hidden too")
	}

	// The sidecar parses again: the document comes back with its groups, without re-embedding.
	texts := ix.Embedder.Texts()
	writeFile(t, root, "hr/"+source.SidecarName, "default_groups: [hr]\n", t0.Add(2*time.Hour))
	res = ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Withheld != 0 || res.Run.ACLOnly != 1 || res.Run.Added != 1 || res.Run.Error != "" {
		t.Fatalf("run after the sidecar is fixed: %+v", res.Run)
	}
	if n := ix.Embedder.Texts() - texts; n != 1 {
		t.Fatalf("restoring access embedded %d texts; want 1 (the new file only)", n)
	}
	if via := ix.VisibleVia(t, query, hr, doc.ID); len(via) != 4 {
		t.Fatalf("after the sidecar is fixed, hr reaches the document only via %v", via)
	}
	if via := ix.VisibleVia(t, query, rag.MustScope("everyone"), doc.ID); len(via) > 0 {
		t.Fatalf("after the sidecar is fixed, everyone reaches the document via %v", via)
	}
	assertChunkGroupsMatch(t, ix)
}
