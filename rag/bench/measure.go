package bench

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Latencies are the query timings of one run, in milliseconds; JSON keys are the ones `cita
// bench --json` prints.
type Latencies struct {
	Questions int `json:"questions"`
	// QuestionWords is the questions' mean length in words.
	QuestionWords float64 `json:"question_words"`
	HybridP50     float64 `json:"hybrid_p50_ms"`
	HybridP95     float64 `json:"hybrid_p95_ms"`
	// Plain pgvector: the filtered top-k of a precomputed query vector, nothing else.
	VectorP50   float64 `json:"vector_p50_ms"`
	VectorP95   float64 `json:"vector_p95_ms"`
	ANNRecall10 float64 `json:"ann_recall@10"`
	// Each arm alone, one after the other: the full-text arm (term lookup, statistics, BM25) and
	// the vector arm (embedding the question, then the filtered top-k).
	FTSAloneP50    float64 `json:"fts_alone_p50_ms"`
	FTSAloneP95    float64 `json:"fts_alone_p95_ms"`
	VectorAloneP50 float64 `json:"vector_alone_p50_ms"`
	VectorAloneP95 float64 `json:"vector_alone_p95_ms"`
	// Inside hybrid: each arm's own time (the arms run concurrently).
	FTSArmP50    float64 `json:"fts_arm_p50_ms"`
	FTSArmP95    float64 `json:"fts_arm_p95_ms"`
	VectorArmP50 float64 `json:"vector_arm_p50_ms"`
	VectorArmP95 float64 `json:"vector_arm_p95_ms"`

	hybrid []time.Duration // per question, in order: which to explain
}

// atPercentile returns the index of the question whose hybrid time is at percentile p (0-1).
func (l *Latencies) atPercentile(p float64) int {
	idx := make([]int, len(l.hybrid))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(l.hybrid[a], l.hybrid[b]) })
	return idx[max(0, min(len(idx)-1, int(math.Ceil(p*float64(len(idx))))-1))] // as pct picks
}

// measure asks every question under its group's scope: through search (hybrid), through each
// arm alone, and as a plain pgvector top-k; with recall it also scores the vector index against
// an exact scan. It returns the first error of the store, the embedder or search.
func measure(ctx context.Context, store Store, emb rag.Embedder, search rag.Searcher, questions []Query, recall bool) (*Latencies, error) {
	const k = 10
	var hybrid, vector, ftsAlone, vecAlone, ftsArm, vecArm []time.Duration
	var recallSum float64
	var words int
	for i, q := range questions {
		words += len(queryWords(q.Text))
		scope := rag.MustScope(q.Group)
		if i == 0 { // warm every path once before timing
			if _, err := search.Search(ctx, rag.SearchRequest{Query: q.Text, Scope: scope}); err != nil {
				return nil, err
			}
		}
		t0 := time.Now()
		sr, err := search.Search(ctx, rag.SearchRequest{Query: q.Text, Scope: scope, Limit: k})
		if err != nil {
			return nil, err
		}
		hybrid = append(hybrid, time.Since(t0))
		ftsArm = append(ftsArm, sr.Trace.Timings["fts"])
		vecArm = append(vecArm, sr.Trace.Timings["embed"]+sr.Trace.Timings["vector"])

		t0 = time.Now()
		if _, _, err := store.SearchFTS(ctx, rag.FTSQuery{Text: q.Text}, scope, rag.DefaultHybridOptions().CandidatesPerArm); err != nil {
			return nil, err
		}
		ftsAlone = append(ftsAlone, time.Since(t0))

		t0 = time.Now()
		vecs, err := emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, err
		}
		t1 := time.Now()
		ann, err := store.SearchVector(ctx, vecs[0], scope, k)
		if err != nil {
			return nil, err
		}
		vector = append(vector, time.Since(t1))
		vecAlone = append(vecAlone, time.Since(t0))
		if !recall {
			continue
		}
		exact, err := store.SearchVectorExact(ctx, vecs[0], scope, k)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(ann))
		for i, h := range ann {
			ids[i] = h.ChunkID
		}
		dist, err := store.Distances(ctx, vecs[0], ids)
		if err != nil {
			return nil, err
		}
		recallSum += recallWithTies(ann, exact, dist)
	}
	l := &Latencies{Questions: len(questions), hybrid: hybrid}
	if len(questions) > 0 {
		l.QuestionWords = float64(words) / float64(len(questions))
		if recall {
			l.ANNRecall10 = recallSum / float64(len(questions))
		}
	}
	l.HybridP50, l.HybridP95 = pct(hybrid, 0.5), pct(hybrid, 0.95)
	l.VectorP50, l.VectorP95 = pct(vector, 0.5), pct(vector, 0.95)
	l.FTSAloneP50, l.FTSAloneP95 = pct(ftsAlone, 0.5), pct(ftsAlone, 0.95)
	l.VectorAloneP50, l.VectorAloneP95 = pct(vecAlone, 0.5), pct(vecAlone, 0.95)
	l.FTSArmP50, l.FTSArmP95 = pct(ftsArm, 0.5), pct(ftsArm, 0.95)
	l.VectorArmP50, l.VectorArmP95 = pct(vecArm, 0.5), pct(vecArm, 0.95)
	return l, nil
}

// queryWords splits a question into words for counting.
func queryWords(q string) []string { return strings.Fields(q) }
