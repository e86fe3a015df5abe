package pgstore_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestTextbookHybridKeepsTheAccessFilter: the benchmark's baseline ranks by both arms and never
// returns a chunk outside the scope, however well it matches.
func TestTextbookHybridKeepsTheAccessFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	public := b.doc(t, "t", "viajes.md", "Viajes", "es", []string{"everyone"}, "La dieta diaria de los viajes nacionales es de 60 euros.")
	b.doc(t, "t", "nominas.md", "Nóminas", "es", []string{"hr"}, "La dieta diaria de los viajes nacionales del comité es de 90 euros.")
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	q := "dieta diaria viajes nacionales"
	vecs, err := b.emb.Embed(ctx, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := b.store.SearchTextbook(ctx, q, "es", vecs[0], rag.MustScope("everyone"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("the textbook hybrid found nothing for words its one readable chunk holds")
	}
	loaded, err := b.store.LoadHits(ctx, []int64{hits[0].ChunkID}, rag.MustScope("everyone"))
	if err != nil || len(loaded) != 1 || loaded[0].DocumentID != public {
		t.Fatalf("best hit %+v (%v), want the public document's chunk", loaded, err)
	}
	for _, h := range hits {
		if got, err := b.store.LoadHits(ctx, []int64{h.ChunkID}, rag.MustScope("everyone")); err != nil || len(got) != 1 {
			t.Errorf("hit %d is not readable by the scope (%v)", h.ChunkID, err)
		}
	}
	if hits, err := b.store.SearchTextbook(ctx, q, "es", vecs[0], rag.MustScope("hr"), 10); err != nil || len(hits) != 1 {
		t.Errorf("hr scope: %d hits, %v; want its one chunk", len(hits), err)
	}
}
