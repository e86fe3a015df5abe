package gdrive_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestDrivePropertiesGiveValidity: a Drive file whose custom properties say it was superseded is
// indexed but never found as current.
func TestDrivePropertiesGiveValidity(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeDrive(t)
	anyone := []map[string]string{{"type": "anyone", "role": "reader"}}
	fake.put(fakeFile{ID: "old", Name: "tarifas-2024.md", MimeType: "text/markdown", Perms: anyone,
		Content:    "# Tarifas\n\nEl plan básico cuesta 39 euros wombat.\n",
		Properties: map[string]string{"superseded_by": "tarifas-2025.md", "superseded_on": "2025-02-01"}})
	fake.put(fakeFile{ID: "new", Name: "tarifas-2025.md", MimeType: "text/markdown", Perms: anyone,
		Content: "# Tarifas\n\nEl plan básico cuesta 49 euros wombat.\n"})
	ix := synctest.New(t)
	src := driveSource(t, srv.URL, option.WithHTTPClient(srv.Client()))
	ix.MustRun(t, src, syncrun.RunOptions{})
	docs := ix.Docs(t, "drive")
	scope := rag.MustScope("everyone")
	if len(docs) != 2 {
		t.Fatalf("indexed %v", docs)
	}
	if ix.Answerable(t, "plan básico wombat", scope, docs["old"].ID) {
		t.Error("the superseded Drive file is found as current")
	}
	if !ix.Answerable(t, "plan básico wombat", scope, docs["new"].ID) {
		t.Error("the current Drive file is not found")
	}
	res, err := ix.Search.Search(context.Background(), rag.SearchRequest{Query: "plan básico wombat 2024",
		Scope: scope.WithPeriod(rag.QuestionPeriod("¿cuánto costaba en 2024?", time.Now())), Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var old *rag.Hit
	for i, h := range res.Hits {
		if h.DocumentID == docs["old"].ID {
			old = &res.Hits[i]
		}
	}
	if old == nil || old.Validity.SupersededBy != "tarifas-2025.md" {
		t.Fatalf("asked about 2024, the superseded file is not cited with its mark: %+v", res.Hits)
	}
}
