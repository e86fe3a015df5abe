package indexer_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
)

// TestInvalidGroupIsWithheld: an item whose source gives it a group name that is not valid
// (rag.ValidateGroup; issue 12, finding 7) has access that cannot be resolved, so it is withheld
// like an item with no group (sync safety): an indexed version becomes readable by nobody at
// once, instead of staying readable by its previous groups as a failed item would.
func TestInvalidGroupIsWithheld(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	item := func(groups ...string) indexer.Item {
		return indexer.Item{ExternalID: "plan.md", Name: "plan.md", Fingerprint: "v1", Groups: groups,
			Open: func(context.Context) ([]byte, error) {
				return []byte("# Plan\n\nThe tapir project launches in March.\n"), nil
			}}
	}
	ix := indexer.New(b.store, b.emb, indexer.Options{}, slog.New(slog.DiscardHandler))
	if _, err := ix.Sync(ctx, "t", []indexer.Item{item("hr")}, true); err != nil {
		t.Fatal(err)
	}
	hr := rag.MustScope("hr")
	if hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "tapir"}, hr, 5); err != nil || len(hits) != 1 {
		t.Fatalf("before: hr finds %d hits (%v)", len(hits), err)
	}

	rep, err := ix.Sync(ctx, "t", []indexer.Item{item("hr,board")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 0 || len(rep.Withheld) != 1 || !strings.Contains(rep.Withheld[0].Reason, `"hr,board"`) {
		t.Fatalf("failed %v, withheld %v; want plan.md withheld with a reason naming the group", rep.Failed, rep.Withheld)
	}
	for _, scope := range []rag.Scope{hr, rag.MustScope("board"), rag.MustScope("board", "everyone", "hr")} {
		if hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "tapir"}, scope, 5); err != nil || len(hits) != 0 {
			t.Errorf("after: %v finds %d hits (%v); want none", scope.Groups(), len(hits), err)
		}
	}
	if hits, err := b.store.SearchVector(ctx, b.emb.Vector("tapir project"), hr, 5); err != nil || len(hits) != 0 {
		t.Errorf("after: the vector arm finds %d hits for hr (%v); want none", len(hits), err)
	}
}
