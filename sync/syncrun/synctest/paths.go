package synctest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// VisibleVia returns the search paths through which a chunk of the document reaches an asker
// of scope asking query: "vector arm", "full-text arm", "LoadHits" (its chunks loaded by id) and
// "hybrid search". An empty result means the document is unsearchable for that scope.
func (ix *Index) VisibleVia(t testing.TB, query string, scope rag.Scope, docID int64) []string {
	t.Helper()
	ctx := context.Background()
	var via []string
	vecs, err := ix.Embedder.inner.Embed(ctx, []string{query})
	if err != nil {
		t.Fatal(err)
	}
	vhits, err := ix.Store.SearchVector(ctx, vecs[0], scope, 200)
	if err != nil {
		t.Fatal(err)
	}
	fhits, _, err := ix.Store.SearchFTS(ctx, rag.FTSQuery{Text: query}, scope, 200)
	if err != nil {
		t.Fatal(err)
	}
	chunks := ix.ChunkIDs(t, docID)
	loaded, err := ix.Store.LoadHits(ctx, chunks, scope)
	if err != nil {
		t.Fatal(err)
	}
	mine := map[int64]bool{}
	for _, id := range chunks {
		mine[id] = true
	}
	for _, arm := range []struct {
		name string
		hits []rag.ArmHit
	}{{"vector arm", vhits}, {"full-text arm", fhits}} {
		for _, h := range arm.hits {
			if mine[h.ChunkID] {
				via = append(via, arm.name)
				break
			}
		}
	}
	if len(loaded) > 0 {
		via = append(via, "LoadHits")
	}
	if ix.Answerable(t, query, scope, docID) {
		via = append(via, "hybrid search")
	}
	return via
}

// ChunkIDs returns the ids of the document's chunks, whatever their groups.
func (ix *Index) ChunkIDs(t testing.TB, docID int64) []int64 {
	t.Helper()
	rows, err := ix.Store.Pool().Query(context.Background(), `SELECT id FROM chunks WHERE document_id = $1 ORDER BY position`, docID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Cache returns an answer cache over the index's database.
func (ix *Index) Cache() *pgstore.Cache {
	return pgstore.NewCache(ix.Store.Pool(), pgstore.CacheOptions{Variant: "synctest"}, slog.New(slog.DiscardHandler))
}

// CacheAnswerCiting stores, under scope and query, an answer citing the document's current
// version (its first chunk readable by scope), as the pipeline would after answering, and
// returns the cache key. It fails the test when no chunk of the document is readable by scope.
func (ix *Index) CacheAnswerCiting(t testing.TB, query string, scope rag.Scope, docID int64) rag.CacheKey {
	t.Helper()
	ctx := context.Background()
	hits, err := ix.Store.LoadHits(ctx, ix.ChunkIDs(t, docID), scope)
	if err != nil || len(hits) == 0 {
		t.Fatalf("no chunk of document %d readable by %v to cite (%v)", docID, scope.Groups(), err)
	}
	key := rag.NewCacheKey(query, scope, "es")
	ans := &rag.Answer{Text: "Según el documento [1].", Lang: "es", Evidence: 0.9, Sources: []rag.Source{{N: 1, Hit: hits[0]}}}
	if err := ix.Cache().Store(ctx, key, ans); err != nil {
		t.Fatal(err)
	}
	return key
}

// CachedAnswer reports whether the cache serves an answer under key.
func (ix *Index) CachedAnswer(t testing.TB, key rag.CacheKey) bool {
	t.Helper()
	ans, err := ix.Cache().Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return ans != nil
}
