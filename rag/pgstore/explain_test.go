package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// TestPlansShowEachArmsStatement: under WithPlans both arms record their main statement's
// EXPLAIN ANALYZE with buffers, the access filter visible in it, and still return their hits.
func TestPlansShowEachArmsStatement(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.doc(t, "t", "vacaciones.md", "Vacaciones", "es", []string{"everyone"}, "Las vacaciones se piden con dos semanas de antelación.")
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	plans := &pgstore.Plans{}
	pctx := pgstore.WithPlans(ctx, plans)
	scope := rag.MustScope("everyone")
	hits, _, err := b.store.SearchFTS(pctx, rag.FTSQuery{Text: "vacaciones antelación"}, scope, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("full text under plans: %d hits, %v", len(hits), err)
	}
	vecs, err := b.emb.Embed(ctx, []string{"vacaciones antelación"})
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := b.store.SearchVector(pctx, vecs[0], scope, 10); err != nil || len(hits) != 1 {
		t.Fatalf("vector under plans: %d hits, %v", len(hits), err)
	}
	got := plans.List()
	if len(got) != 2 || got[0].Name != "full-text scoring" || got[1].Name != "vector search" {
		t.Fatalf("plans %+v", got)
	}
	for _, p := range got {
		if !strings.Contains(p.Text, "Buffers:") || !strings.Contains(p.Text, "actual time") || !strings.Contains(p.Text, "groups &&") {
			t.Errorf("%s plan lacks ANALYZE, BUFFERS or the access filter:\n%s", p.Name, p.Text)
		}
		if strings.Contains(p.Text, "0,0,0") {
			t.Errorf("%s plan prints the query vector:\n%s", p.Name, p.Text)
		}
	}
	// Without WithPlans nothing is collected.
	if _, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "vacaciones"}, scope, 10); err != nil || len(plans.List()) != 2 {
		t.Errorf("a search without WithPlans added plans (%d) or failed: %v", len(plans.List()), err)
	}
}
