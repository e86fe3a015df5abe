package bench_test

import (
	"context"
	"slices"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/bench"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// smallConfig is a benchmark of 300 chunks and 10 queries on a fresh store, recording its
// progress reports.
func smallConfig(t *testing.T) (bench.Config, *[]string) {
	emb := hashembed.New(0)
	store := pgstoretest.New(t, emb.Info())
	var reports []string
	return bench.Config{Chunks: 300, Queries: 10, Store: store, Embedder: emb, Writers: 2,
		Search:   rag.NewHybrid(store, emb, rag.DefaultHybridOptions()),
		Progress: func(s string) { reports = append(reports, s) }}, &reports
}

// TestLoadAndRunOnASmallCorpus runs both entry points at a size a test can afford: Load returns
// the queries it promised, each for one of the corpus's groups and finding a chunk that group may
// read; Run measures the same corpus shape, adds to it with the index in place, and reports its
// figures.
func TestLoadAndRunOnASmallCorpus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, reports := smallConfig(t)
	queries, err := bench.Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) < cfg.Queries || len(*reports) == 0 {
		t.Fatalf("Load: %d queries for %d asked, %d progress reports", len(queries), cfg.Queries, len(*reports))
	}
	for _, q := range queries {
		if !slices.Contains(bench.Groups(), q.Group) {
			t.Fatalf("query %q for unknown group %q", q.Text, q.Group)
		}
		res, err := cfg.Search.Search(ctx, rag.SearchRequest{Query: q.Text, Scope: rag.MustScope(q.Group)})
		if err != nil || len(res.Hits) == 0 {
			t.Errorf("query %q under %s: %d hits, %v", q.Text, q.Group, len(res.Hits), err)
		}
	}

	cfg, reports = smallConfig(t)
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The bulk load, then at least ten documents (200 chunks) added with the index in place.
	if res.Chunks != cfg.Chunks+200 || res.IndexChunksPerS <= 0 || res.HybridP50 <= 0 || res.ANNRecall10 <= 0 || res.ANNRecall10 > 1 || len(*reports) == 0 {
		t.Errorf("Run: %+v after %d progress reports", res, len(*reports))
	}
}
