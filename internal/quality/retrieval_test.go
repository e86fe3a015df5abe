package quality_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/rag/eval"
)

// TestRetrievalQuality guards the figures of docs/answer-quality.md: hybrid nDCG@10 on the XQuAD
// sets stays at or above the targets and never below the better of its two arms. Search runs as
// cita wires it: with the offline translator, which the cross-lingual sets (Spanish questions over
// English passages and the reverse) need.
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
			ix.add(t, ctx, ds)
			if got := checkNotBelowBetterArm(t, ctx, ix, ds); got["hybrid"] < target {
				t.Errorf("hybrid nDCG@10 %.4f < target %.2f", got["hybrid"], target)
			}
		})
	}
}
