package quality_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// TestRetrievalQuality guards the README's figures: hybrid nDCG@10 on the XQuAD sets stays at or
// above the targets and never below the better of its two arms. Search runs as cita wires it:
// with the offline translator, which the cross-lingual sets (Spanish questions over English
// passages and the reverse) need.
func TestRetrievalQuality(t *testing.T) {
	sharedDir(t, "eval")
	tr := translator(t)
	targets := map[string]float64{"xquad-es": 0.95, "xquad-en": 0.96, "xquad-es2en": 0.90, "xquad-en2es": 0.90}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ds, err := eval.Load(sharedDir(t, "eval/"+name))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			ix := newIndex(t, tr)
			docs, _ := ds.Documents()
			if _, err := evalindex.Documents(ctx, ix.store, ix.emb, ix.logger, "eval", docs, []string{"eval"}); err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, mode := range []string{"fts", "vector", "hybrid"} {
				m, err := eval.Run(ctx, ds, ix.search, rag.MustScope("eval"), mode, nil)
				if err != nil {
					t.Fatal(err)
				}
				got[mode] = m.NDCG10
				t.Logf("%s %-6s nDCG@10 %.4f Recall@10 %.4f MRR@10 %.4f Recall@100 %.4f", name, mode, m.NDCG10, m.Recall10, m.MRR10, m.Recall100)
			}
			if got["hybrid"] < target {
				t.Errorf("hybrid nDCG@10 %.4f < target %.2f", got["hybrid"], target)
			}
			if best := max(got["fts"], got["vector"]); got["hybrid"] < best {
				t.Errorf("hybrid nDCG@10 %.4f is below the better arm (%.4f)", got["hybrid"], best)
			}
		})
	}
}
