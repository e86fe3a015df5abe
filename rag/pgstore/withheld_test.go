package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// TestWithheldDocumentIsReadableByNobody withholds a document and looks for it on every path a
// search can take: both arms, LoadHits, fuzzy corrections and the answer cache. Its chunks stay,
// and SetGroups or ReplaceDocument makes it readable again.
func TestWithheldDocumentIsReadableByNobody(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{})
	ctx := context.Background()
	docID, version := b.index(t, "plan.md", []string{"board"}, "The Quetzalcoatl project launches in March.")
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	board := rag.MustScope("board")
	if _, terms, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "quetzalcoal project"}, board, 10); err != nil || !strings.Contains(strings.Join(terms, " "), "quetzalcoatl") {
		t.Fatalf("before: the board's misspelling is not corrected: %v, %v", terms, err)
	}
	key := rag.CacheKey{Query: "quetzalcoatl launch", Scope: board.Key(), Lang: "en"}
	if err := b.cache.Store(ctx, key, answerCiting("It launches in March [1].", [2]int64{docID, version})); err != nil {
		t.Fatal(err)
	}
	var chunkIDs []int64
	rows, _ := b.store.Pool().Query(ctx, `SELECT id FROM chunks WHERE document_id = $1`, docID)
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		chunkIDs = append(chunkIDs, id)
	}
	if err := b.store.WithholdDocument(ctx, "cache", "plan.md", "access sidecar .cita-access.yaml: yaml: line 1: did not find expected ',' or ']'"); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []rag.Scope{board, rag.MustScope("everyone"), rag.MustScope("board", "everyone", "hr")} {
		if hits, err := b.store.SearchVector(ctx, b.emb.Vector("Quetzalcoatl project launch"), scope, 10); err != nil || len(hits) != 0 {
			t.Errorf("vector arm for %v: %d hits, %v", scope.Groups(), len(hits), err)
		}
		hits, terms, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "quetzalcoal project"}, scope, 10)
		if err != nil || len(hits) != 0 {
			t.Errorf("full-text arm for %v: %d hits, %v", scope.Groups(), len(hits), err)
		}
		if strings.Contains(strings.Join(terms, " "), "quetzalcoatl") {
			t.Errorf("a misspelling was corrected to a word only the withheld document holds: %v", terms)
		}
		if hits, err := b.store.LoadHits(ctx, chunkIDs, scope); err != nil || len(hits) != 0 {
			t.Errorf("LoadHits for %v: %d hits, %v", scope.Groups(), len(hits), err)
		}
	}
	if ans, err := b.cache.Lookup(ctx, key); err != nil || ans != nil {
		t.Errorf("the cache serves an answer citing the withheld document (%v)", err)
	}
	var kept int
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM chunks WHERE document_id = $1 AND embedding IS NOT NULL`, docID).Scan(&kept); err != nil || kept != len(chunkIDs) {
		t.Fatalf("withholding kept %d of %d chunks (%v)", kept, len(chunkIDs), err)
	}
	withheld, err := b.store.Withheld(ctx, "cache")
	if err != nil || len(withheld) != 1 || !strings.Contains(withheld[0].Reason, "sidecar") || withheld[0].Since.IsZero() {
		t.Fatalf("Withheld: %+v, %v", withheld, err)
	}

	// A chunk cannot lose its groups outside a withhold: the database refuses it.
	if _, err := b.store.Pool().Exec(ctx, `UPDATE chunks SET groups = '{}', withheld = false WHERE document_id = $1`, docID); err == nil {
		t.Error("the database accepted a chunk with no group that is not withheld")
	}

	if err := b.store.SetGroups(ctx, "cache", "plan.md", []string{"board"}); err != nil {
		t.Fatal(err)
	}
	if hits, err := b.store.LoadHits(ctx, chunkIDs, board); err != nil || len(hits) != len(chunkIDs) {
		t.Fatalf("after SetGroups the board reads %d of %d chunks (%v)", len(hits), len(chunkIDs), err)
	}
	if withheld, _ := b.store.Withheld(ctx, "cache"); len(withheld) != 0 {
		t.Fatalf("still withheld after SetGroups: %+v", withheld)
	}
	if err := b.store.WithholdDocument(ctx, "cache", "plan.md", "no access group"); err != nil {
		t.Fatal(err)
	}
	b.index(t, "plan.md", []string{"board"}, "The Quetzalcoatl project launches in April.")
	if docs, _ := b.store.Documents(ctx, "cache"); docs["plan.md"].AccessError != "" || len(docs["plan.md"].Groups) != 1 {
		t.Fatalf("after ReplaceDocument: %+v", docs["plan.md"])
	}
	if err := b.store.WithholdDocument(ctx, "cache", "missing.md", "no access group"); err == nil {
		t.Error("withholding a document that is not indexed did not fail")
	}
}
