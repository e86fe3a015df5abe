package rag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"time"
)

// ArmRerank names the reranker in traces: a reranked hit carries its rank and score from the
// reranker in ArmRank[ArmRerank] and ArmScore[ArmRerank], and SearchTrace.Arms[ArmRerank] lists
// the reranker's order. It is not a search arm: fusion never sees it.
const ArmRerank Arm = "rerank"

// Trace timing keys of the rerank stage. TimingRerank is set when the reranker's order was used;
// TimingRerankFallback when it failed or timed out and the fused order was kept.
const (
	TimingRerank         = "rerank"
	TimingRerankFallback = "rerank_fallback"
)

// Rerank stage defaults.
const (
	DefaultRerankTopN    = 30
	DefaultRerankTimeout = 2 * time.Second
)

// rerankHits reorders the first topN hits of res by the reranker's scores (ties keep the fused
// order; hits past topN follow unchanged), records the reranker's ranks in the hits and the trace,
// and returns nil. On error or timeout it leaves the fused order untouched, records
// TimingRerankFallback, and returns the error for the caller to log.
func rerankHits(ctx context.Context, r Reranker, timeout time.Duration, query string, res *SearchResult, topN int) error {
	if res.Trace.Timings == nil {
		res.Trace.Timings = map[string]time.Duration{}
	}
	n := min(topN, len(res.Hits))
	if n < 2 {
		return nil // nothing to reorder
	}
	head := res.Hits[:n]
	texts := make([]string, n)
	for i, h := range head {
		texts[i] = h.Text()
	}
	start := time.Now()
	rctx, cancel := context.WithTimeoutCause(ctx, timeout, errRerankTimeout)
	scores, err := r.Rerank(rctx, query, texts)
	if err == nil && errors.Is(context.Cause(rctx), errRerankTimeout) {
		err = errRerankTimeout // a reranker that ignores its context
	}
	cancel()
	took := time.Since(start)
	if err == nil && len(scores) != n {
		err = fmt.Errorf("reranker returned %d scores for %d hits", len(scores), n)
	}
	if err != nil {
		res.Trace.Timings[TimingRerankFallback] = took
		return fmt.Errorf("rerank %d hits (fused order kept): %w", n, err)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	reranked := make([]Hit, 0, len(res.Hits))
	armHits := make([]ArmHit, n)
	for rank, i := range order {
		h := head[i]
		h.ArmRank = withRerank(h.ArmRank, rank+1)
		h.ArmScore = withRerank(h.ArmScore, scores[i])
		reranked = append(reranked, h)
		armHits[rank] = ArmHit{ChunkID: h.ChunkID, Rank: rank + 1, Score: scores[i]}
	}
	res.Hits = append(reranked, res.Hits[n:]...)
	if res.Trace.Arms == nil {
		res.Trace.Arms = map[Arm][]ArmHit{}
	}
	res.Trace.Arms[ArmRerank] = armHits
	res.Trace.Timings[TimingRerank] = took
	return nil
}

var errRerankTimeout = errors.New("rerank stage timeout")

// withRerank returns a copy of a hit's per-arm ranks or scores with the reranker's value added
// (the searcher's maps may be shared or nil).
func withRerank[V any](perArm map[Arm]V, v V) map[Arm]V {
	out := make(map[Arm]V, len(perArm)+1)
	maps.Copy(out, perArm)
	out[ArmRerank] = v
	return out
}

// rerank runs the rerank stage when a reranker is configured, logging a fallback.
func (p *Pipeline) rerank(ctx context.Context, query string, res *SearchResult, timings map[string]time.Duration) {
	if p.opts.Reranker == nil {
		return
	}
	start := time.Now()
	err := rerankHits(ctx, p.opts.Reranker, p.opts.RerankTimeout, query, res, p.opts.RerankTopN)
	timings["rerank"] = time.Since(start)
	if err != nil {
		p.logger.WarnContext(ctx, "rerank failed, using fused order", slog.String("error", err.Error()))
	}
	if len(res.Hits) > p.opts.Retrieve {
		res.Hits = res.Hits[:p.opts.Retrieve]
	}
}
