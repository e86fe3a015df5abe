package indexer_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
)

// TestNarrowedAccessAppliesWhenReindexFails: a document whose access narrows in the same change
// that makes its new content unreadable (too large to export, an extraction error, the embedding
// API down) must not stay readable by the groups its source no longer gives while it waits to
// re-index. Groups that may read both versions keep the old version; a group that may read
// neither loses it; once the content indexes, the new groups apply.
func TestNarrowedAccessAppliesWhenReindexFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const text = "# Plan\n\nThe okapi project launches in March.\n"
	for _, tc := range []struct {
		name       string
		old, new   []string
		readable   []string // groups that find the old version while the new one fails
		unreadable []string
	}{
		{name: "narrowed", old: []string{"everyone", "hr"}, new: []string{"hr"}, readable: []string{"hr"}, unreadable: []string{"everyone"}},
		{name: "moved", old: []string{"everyone"}, new: []string{"board"}, unreadable: []string{"everyone", "board"}},
		{name: "widened", old: []string{"hr"}, new: []string{"everyone", "hr"}, readable: []string{"hr"}, unreadable: []string{"everyone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ix := indexer.New(b.store, b.emb, indexer.Options{}, slog.New(slog.DiscardHandler))
			item := indexer.Item{ExternalID: "plan.md", Name: "plan.md", Fingerprint: "v1", Groups: tc.old,
				Open: func(context.Context) ([]byte, error) { return []byte(text), nil }}
			if _, err := ix.Sync(ctx, "t", []indexer.Item{item}, true); err != nil {
				t.Fatal(err)
			}
			finds := func(group string) bool {
				t.Helper()
				hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "okapi"}, rag.MustScope(group), 5)
				if err != nil {
					t.Fatal(err)
				}
				return len(hits) > 0
			}

			item.Fingerprint, item.Groups = "v2", tc.new
			item.Open = func(context.Context) ([]byte, error) { return nil, errors.New("export limit exceeded") }
			rep, err := ix.Sync(ctx, "t", []indexer.Item{item}, true)
			if err != nil || len(rep.Failed) != 1 {
				t.Fatalf("failing re-index: %v, failed %v", err, rep.Failed)
			}
			for _, g := range tc.readable {
				if !finds(g) {
					t.Errorf("%s may read both versions but lost the old one", g)
				}
			}
			for _, g := range tc.unreadable {
				if finds(g) {
					t.Errorf("%s still reads the old version after the source stopped giving it access", g)
				}
			}

			// A second failing pass changes nothing; the first that reads the content applies the new groups.
			if _, err := ix.Sync(ctx, "t", []indexer.Item{item}, true); err != nil {
				t.Fatal(err)
			}
			item.Open = func(context.Context) ([]byte, error) { return []byte(text + "\nUpdated.\n"), nil }
			if rep, err := ix.Sync(ctx, "t", []indexer.Item{item}, true); err != nil || rep.Changed != 1 {
				t.Fatalf("re-index: %v %+v", err, rep)
			}
			for _, g := range tc.new {
				if !finds(g) {
					t.Errorf("after the re-index %s cannot read the document", g)
				}
			}
			if !containsAll(tc.new, "everyone") && finds("everyone") {
				t.Error("after the re-index everyone reads the document")
			}
		})
	}
}

// TestHeldBackDeletionsAreWithheld: when the mass-deletion guard holds back the deletion of
// documents a listing no longer holds (an unmounted share, or files unshared from cita's
// account), they are kept but readable by nobody; when the listing holds them again they come
// back without re-indexing.
func TestHeldBackDeletionsAreWithheld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	ix := indexer.New(b.store, b.emb, indexer.Options{}, slog.New(slog.DiscardHandler))
	var items []indexer.Item
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		items = append(items, indexer.Item{ExternalID: name, Name: name, Fingerprint: "v1", Groups: []string{"everyone"},
			Open: func(context.Context) ([]byte, error) {
				return []byte("# " + name + "\n\nThe quokka rota lives here.\n"), nil
			}})
	}
	if _, err := ix.Sync(ctx, "t", items, true); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "quokka"}, rag.MustScope("everyone"), 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if n := count(); n != 5 {
		t.Fatalf("before: %d hits, want 5", n)
	}
	rep, err := ix.Sync(ctx, "t", items[:1], true) // 4 of 5 gone: held back
	if err != nil || rep.DeletesBlocked != 4 || rep.Deleted != 0 {
		t.Fatalf("held-back pass: %v %+v", err, rep)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the held-back pass everyone finds %d documents, want only the listed one", n)
	}
	rep, err = ix.Sync(ctx, "t", items, true)
	if err != nil || rep.ACLOnly != 4 || rep.Changed+rep.Added != 0 {
		t.Fatalf("listing restored: %v %+v; want 4 access-only changes, no re-index", err, rep)
	}
	if n := count(); n != 5 {
		t.Fatalf("after the listing held them again: %d hits, want 5", n)
	}
}

func containsAll(groups []string, g string) bool {
	for _, x := range groups {
		if x == g {
			return true
		}
	}
	return false
}
