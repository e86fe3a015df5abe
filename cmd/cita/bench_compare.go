package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/rag/pgstore"
)

// baselineSearcher answers a search with one of the baselines cita's hybrid is compared with
// (`cita bench --corpus DIR --compare`): plain pgvector, or the textbook PostgreSQL hybrid.
type baselineSearcher struct {
	store    *pgstore.Store
	embedder rag.Embedder
	textbook bool // the textbook hybrid; plain pgvector otherwise
}

func (b baselineSearcher) Search(ctx context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
	vecs, err := b.embedder.Embed(ctx, []string{req.Query})
	if err != nil {
		return nil, err
	}
	k := req.Limit
	if k <= 0 {
		k = 10
	}
	var ranked []rag.ArmHit
	if b.textbook {
		ranked, err = b.store.SearchTextbook(ctx, req.Query, rag.AnswerLang(req.Query), vecs[0], req.Scope, k)
	} else {
		ranked, err = b.store.SearchVector(ctx, vecs[0], req.Scope, k)
	}
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(ranked))
	for i, h := range ranked {
		ids[i] = h.ChunkID
	}
	loaded, err := b.store.LoadHits(ctx, ids, req.Scope)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]rag.Hit, len(loaded))
	for _, h := range loaded {
		byID[h.ChunkID] = h
	}
	res := &rag.SearchResult{}
	for _, h := range ranked {
		if hit, ok := byID[h.ChunkID]; ok {
			res.Hits = append(res.Hits, hit)
		}
	}
	return res, nil
}

// compareBaselines scores cita's hybrid search, plain pgvector and the textbook hybrid on a BEIR
// set's questions (the same index, scope and questions) and prints quality beside latency.
func compareBaselines(ctx context.Context, e *env, a *app, ds *eval.Dataset, asJSON bool) error {
	scope := rag.MustScope(corpusBenchGroup)
	var rows []*eval.Metrics
	for _, s := range []struct {
		name     string
		searcher rag.Searcher
	}{
		{"cita hybrid", a.search},
		{"plain pgvector", baselineSearcher{store: a.store, embedder: a.embedder}},
		{"textbook hybrid", baselineSearcher{store: a.store, embedder: a.embedder, textbook: true}},
	} {
		m, err := eval.Run(ctx, ds, s.searcher, scope, "hybrid", nil)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		m.Mode = s.name
		rows = append(rows, m)
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(rows)
	}
	fmt.Fprintf(e.stdout, "%s: %d questions, one access group\n", ds.Name, len(ds.Queries))
	fmt.Fprintf(e.stdout, "  %-16s %8s %9s %9s %9s\n", "search", "nDCG@10", "recall@10", "p50 ms", "p95 ms")
	for _, m := range rows {
		fmt.Fprintf(e.stdout, "  %-16s %8.4f %9.4f %9.2f %9.2f\n", m.Mode, m.NDCG10, m.Recall10, m.P50ms, m.P95ms)
	}
	return nil
}
