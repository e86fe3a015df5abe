package gdrive_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/api/option"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestDriveUnmappablePermissionsWithheld: a file whose permissions no longer map to any group
// (shared only by link with no anyone_group, or permissions Drive no longer shows) is withheld
// from every search path at once, in incremental and in full passes, and comes back without
// re-embedding when a mappable permission returns.
func TestDriveUnmappablePermissionsWithheld(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"incremental", "full"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			fake, srv := newFakeDrive(t)
			seedDrive(fake)
			ix := synctest.New(t)
			// No anyone_group: a link share gives no group.
			src := syncrun.Source{Name: "drive", Connector: newDrive(t, srv.URL, option.WithHTTPClient(srv.Client()), "")}
			ix.MustRun(t, src, syncrun.RunOptions{})
			const query = "formulario ornitorrinco viáticos"
			eng := rag.MustScope("engineering")
			doc := ix.Docs(t, "drive")["doc1"]
			if via := ix.VisibleVia(t, query, eng, doc.ID); len(via) != 4 {
				t.Fatalf("before: engineering reaches doc1 only via %v", via)
			}
			key := ix.CacheAnswerCiting(t, query, eng, doc.ID)

			// Every permission but a link share goes: nothing maps to a group any more.
			fake.update("doc1", func(f *fakeFile) { f.Perms = []map[string]string{{"type": "anyone", "role": "reader"}} })
			ro := syncrun.RunOptions{Full: mode == "full"}
			res, err := ix.Runner.Run(context.Background(), src, ro)
			if err != nil {
				t.Fatal(err)
			}
			// A full pass also lists slides1, shared by link only and so never indexed here.
			wantWithheld := map[string]int{"incremental": 1, "full": 2}[mode]
			if res.Run.Mode != mode || res.Run.Withheld != wantWithheld || res.Withheld[0].ExternalID != "doc1" ||
				!strings.Contains(res.Withheld[0].Reason, "anyone_group") {
				t.Fatalf("%s pass: %+v, withheld %v", mode, res.Run, res.Withheld)
			}
			for _, scope := range []rag.Scope{eng, rag.MustScope("alice@example.com"), rag.MustScope("everyone")} {
				if via := ix.VisibleVia(t, query, scope, doc.ID); len(via) > 0 {
					t.Errorf("doc1 without a mappable permission reaches %v via %v", scope.Groups(), via)
				}
			}
			if ix.CachedAnswer(t, key) {
				t.Error("a cached answer citing doc1 is still served")
			}
			if others := ix.Docs(t, "drive")["md1"]; len(ix.VisibleVia(t, "repositorio pelícano", rag.MustScope("bob@example.com"), others.ID)) == 0 {
				t.Error("another file of the drive was hidden too")
			}

			texts := ix.Embedder.Texts()
			fake.update("doc1", func(f *fakeFile) { f.Perms = []map[string]string{group("eng@example.com")} })
			ix.MustRun(t, src, ro)
			if n := ix.Embedder.Texts() - texts; n != 0 {
				t.Errorf("restoring access re-embedded %d texts", n)
			}
			if via := ix.VisibleVia(t, query, eng, doc.ID); len(via) != 4 {
				t.Errorf("after a mappable permission returns, engineering reaches doc1 only via %v", via)
			}
		})
	}
}

// TestDrivePermissionsUnreadableWithheld: a shared-drive file whose permissions cannot be read
// (permissions.list fails) is withheld for that pass; the rest of the listing goes on.
func TestDrivePermissionsUnreadableWithheld(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeDrive(t)
	seedDrive(fake)
	ix := synctest.New(t)
	src := driveSource(t, srv.URL, option.WithHTTPClient(srv.Client()))
	ix.MustRun(t, src, syncrun.RunOptions{})
	doc := ix.Docs(t, "drive")["txt1"] // on a shared drive: permissions are fetched per file
	const query = "proveedor tucán reunión"
	domain := rag.MustScope("domain:example.com")
	if via := ix.VisibleVia(t, query, domain, doc.ID); len(via) != 4 {
		t.Fatalf("before: reaches txt1 only via %v", via)
	}
	fake.failPermissions = map[string]bool{"txt1": true}
	res := ix.MustRun(t, src, syncrun.RunOptions{Full: true})
	if res.Run.Withheld != 1 || !res.Run.Complete || res.Run.Unchanged != 4 || !strings.Contains(res.Withheld[0].Reason, "permissions of txt1") {
		t.Fatalf("pass with unreadable permissions: %+v, withheld %v", res.Run, res.Withheld)
	}
	if via := ix.VisibleVia(t, query, domain, doc.ID); len(via) > 0 {
		t.Fatalf("a file whose permissions could not be read still reaches its old groups via %v", via)
	}
	fake.failPermissions = nil
	if res := ix.MustRun(t, src, syncrun.RunOptions{Full: true}); res.Run.Withheld != 0 || res.Run.ACLOnly != 1 {
		t.Fatalf("pass after permissions are readable again: %+v", res.Run)
	}
	if via := ix.VisibleVia(t, query, domain, doc.ID); len(via) != 4 {
		t.Fatalf("after: reaches txt1 only via %v", via)
	}
}
