package gdrive_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/option"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source/gdrive"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

func user(email string) map[string]string {
	return map[string]string{"type": "user", "role": "reader", "emailAddress": email}
}
func group(email string) map[string]string {
	return map[string]string{"type": "group", "role": "writer", "emailAddress": email}
}

func seedDrive(f *fakeDrive) {
	f.put(fakeFile{ID: "doc1", Name: "Política de viajes", MimeType: "application/vnd.google-apps.document",
		Content: "# Viajes\n\nLos viáticos internacionales se aprueban con formulario ornitorrinco.\n",
		Perms:   []map[string]string{user("Alice@Example.com"), group("eng@example.com")}})
	f.put(fakeFile{ID: "sheet1", Name: "Presupuesto", MimeType: "application/vnd.google-apps.spreadsheet",
		Content: "area,monto\nmarketing,5000\nlogistica kiwi,7000\n", Perms: []map[string]string{group("finance@example.com")}})
	f.put(fakeFile{ID: "slides1", Name: "Kickoff", MimeType: "application/vnd.google-apps.presentation",
		Content: "Kickoff 2026\nObjetivo: lanzar el producto capibara.\n", Perms: []map[string]string{{"type": "anyone", "role": "reader"}}})
	f.put(fakeFile{ID: "txt1", Name: "notas.txt", MimeType: "text/plain", DriveID: "shared-1",
		Content: "Notas de la reunión sobre el proveedor tucán.\n", Perms: []map[string]string{{"type": "domain", "role": "reader", "domain": "Example.com"}}})
	f.put(fakeFile{ID: "md1", Name: "README", MimeType: "text/markdown",
		Content: "# Léeme\n\nGuía rápida del repositorio pelícano.\n", Perms: []map[string]string{user("bob@example.com")}})
	f.put(fakeFile{ID: "folder1", Name: "Carpeta", MimeType: "application/vnd.google-apps.folder"})
	f.put(fakeFile{ID: "img1", Name: "foto.png", MimeType: "image/png", Content: "\x89PNG"})
}

func driveSource(t *testing.T, srvURL string, client option.ClientOption) syncrun.Source {
	t.Helper()
	return syncrun.Source{Name: "drive", Connector: newDrive(t, srvURL, client, "everyone")}
}

// newDrive returns the connector of the test source; anyone is its anyone_group.
func newDrive(t *testing.T, srvURL string, client option.ClientOption, anyone string) *gdrive.Drive {
	t.Helper()
	cfg := config.SourceConfig{Name: "drive", Type: "gdrive", GDrive: config.GDriveSource{
		SheetsFormat: "csv", SlidesFormat: "text", AnyoneGroup: anyone,
		GroupAliases: map[string]string{"eng@example.com": "engineering"},
	}}
	d, err := gdrive.New(context.Background(), cfg, slog.New(slog.DiscardHandler), option.WithEndpoint(srvURL+"/drive/v3/"), client)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDriveSync runs full and incremental passes through the real Drive client against the
// loopback fake: exports, downloads, pagination, permissions, changes, deletions and faults.
func TestDriveSync(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeDrive(t)
	seedDrive(fake)
	ix := synctest.New(t)
	src := driveSource(t, srv.URL, option.WithHTTPClient(srv.Client()))
	ctx := context.Background()

	res := ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Mode != "full" || res.Run.Added != 5 || res.Run.Failed != 0 || !res.Run.Complete {
		t.Fatalf("first run: %+v %v", res.Run, res.Failures)
	}
	if fake.listPages < 4 {
		t.Fatalf("files.list served %d pages; the fake caps pages at 2 files", fake.listPages)
	}
	docs := ix.Docs(t, "drive")
	wantGroups := map[string][]string{
		"doc1":    {"alice@example.com", "engineering"},
		"sheet1":  {"finance@example.com"},
		"slides1": {"everyone"},
		"txt1":    {"domain:example.com"},
		"md1":     {"bob@example.com"},
	}
	for id, want := range wantGroups {
		if got := docs[id].Groups; !slices.Equal(got, want) {
			t.Errorf("%s groups %v, want %v", id, got, want)
		}
	}
	if !ix.Answerable(t, "formulario ornitorrinco", rag.MustScope("engineering"), docs["doc1"].ID) ||
		ix.Answerable(t, "formulario ornitorrinco", rag.MustScope("everyone"), docs["doc1"].ID) {
		t.Fatal("exported Google Doc not searchable with exactly its permissions")
	}

	// Nothing changed: an incremental pass lists nothing and downloads nothing.
	media := fake.mediaRequests
	res = ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Mode != "incremental" || res.Run.Listed != 0 || fake.mediaRequests != media {
		t.Fatalf("idle incremental run: %+v, %d downloads", res.Run, fake.mediaRequests-media)
	}

	// An edit, a permission change, a deletion, a trashed file.
	fake.update("doc1", func(f *fakeFile) { f.Content = "# Viajes\n\nLos viáticos se aprueban con formulario narval.\n" })
	fake.update("md1", func(f *fakeFile) { f.Perms = append(f.Perms, group("eng@example.com")) })
	fake.remove("slides1")
	fake.update("sheet1", func(f *fakeFile) { f.Trashed = true })
	texts := ix.Embedder.Texts()
	res = ix.MustRun(t, src, syncrun.RunOptions{})
	want := syncrun.Run{Listed: 2, Changed: 1, ACLOnly: 1, Deleted: 2}
	if got := (syncrun.Run{Listed: res.Run.Listed, Changed: res.Run.Changed, ACLOnly: res.Run.ACLOnly, Deleted: res.Run.Deleted}); got != want || res.Run.Mode != "incremental" {
		t.Fatalf("incremental run: %+v, want %+v", res.Run, want)
	}
	if ix.Embedder.Texts()-texts == 0 {
		t.Fatal("the edited doc was not re-embedded")
	}
	docs = ix.Docs(t, "drive")
	if _, ok := docs["slides1"]; ok {
		t.Fatal("deleted file still indexed")
	}
	if !slices.Equal(docs["md1"].Groups, []string{"bob@example.com", "engineering"}) {
		t.Fatalf("md1 groups %v", docs["md1"].Groups)
	}

	// A Google Doc over the export limit fails with a clear reason; the token is kept so the
	// change is replayed, and the old version stays.
	fake.exportTooBig["doc1"] = true
	fake.update("doc1", func(f *fakeFile) { f.Content += "\nMás texto.\n" })
	before := ix.Docs(t, "drive")["doc1"]
	res = ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Failed != 1 || !strings.Contains(res.Run.Error, "10 MB export limit") {
		t.Fatalf("oversize export: %+v", res.Run)
	}
	if after := ix.Docs(t, "drive")["doc1"]; after.Version != before.Version {
		t.Fatal("oversize export replaced the previous version")
	}
	delete(fake.exportTooBig, "doc1")
	if res = ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Changed != 1 || res.Run.Failed != 0 {
		t.Fatalf("replayed change after the failure: %+v", res.Run)
	}

	// A full listing whose second page fails deletes nothing and keeps the token.
	fake.remove("md1")
	fake.failListPage = fake.listPages + 2
	res, err := ix.Runner.Run(ctx, src, syncrun.RunOptions{Full: true})
	if err == nil || res.Run.Complete || res.Run.Deleted != 0 {
		t.Fatalf("failed listing: err %v, run %+v", err, res.Run)
	}
	if _, ok := ix.Docs(t, "drive")["md1"]; !ok {
		t.Fatal("a failed listing deleted a document")
	}
	fake.failListPage = 0

	// A download failure: the file keeps its version, the others go on.
	fake.failMedia["txt1"] = true
	fake.update("txt1", func(f *fakeFile) { f.Content = "Notas nuevas sobre el proveedor tucán y el flamenco.\n" })
	txtBefore := ix.Docs(t, "drive")["txt1"]
	res, err = ix.Runner.Run(ctx, src, syncrun.RunOptions{Full: true})
	if err != nil || res.Run.Failed != 1 || res.Run.Deleted != 1 || res.Failures[0].ExternalID != "txt1" {
		t.Fatalf("full run with a failed download: %v %+v %v", err, res.Run, res.Failures)
	}
	if ix.Docs(t, "drive")["txt1"].Version != txtBefore.Version {
		t.Fatal("failed download replaced the previous version")
	}
	assertConsistent(t, ix)
}

func assertConsistent(t *testing.T, ix *synctest.Index) {
	t.Helper()
	var bad int
	err := ix.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM documents d
		WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)
		   OR EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND c.groups <> d.groups)`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d inconsistent documents (%v)", bad, err)
	}
}

// TestDriveInvalidGroupFailsClosed is part of the regression test of issue 12, finding 7: a
// permission whose e-mail address is not a valid group name used to become a group as it was.
// Now the file's access cannot be resolved: it is withheld (a new file is not indexed), and the
// reason names the group.
func TestDriveInvalidGroupFailsClosed(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeDrive(t)
	fake.put(fakeFile{ID: "ok1", Name: "ok.txt", MimeType: "text/plain", Content: "Documento correcto sobre el proyecto quetzal.\n",
		Perms: []map[string]string{user("alice@example.com")}})
	fake.put(fakeFile{ID: "bad1", Name: "bad.txt", MimeType: "text/plain", Content: "Documento con permisos raros sobre el proyecto ocelote.\n",
		Perms: []map[string]string{group("eng@example.com"), user("mallory,everyone@example.com")}})
	ix := synctest.New(t)
	src := driveSource(t, srv.URL, option.WithHTTPClient(srv.Client()))
	res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Added != 1 || res.Run.Withheld != 1 || len(res.Withheld) != 1 || res.Withheld[0].ExternalID != "bad1" ||
		!strings.Contains(res.Withheld[0].Reason, `invalid access group name "mallory,everyone@example.com"`) {
		t.Fatalf("run %+v, withheld %+v; want bad1 withheld for its invalid group", res.Run, res.Withheld)
	}
	if _, ok := ix.Docs(t, "drive")["bad1"]; ok {
		t.Fatal("a file with an invalid group name was indexed")
	}
}
