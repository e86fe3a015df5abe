package quality_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/rag/eval"
)

// TestExactReferenceSet runs the project's own exact-reference set (testdata/exactref) in every
// mode: hybrid search is never below the better of its two arms. It needs no shared data.
func TestExactReferenceSet(t *testing.T) {
	ds, err := eval.Load("../../testdata/exactref")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ix := newIndex(t, nil)
	ix.add(t, ctx, ds)
	got := checkNotBelowBetterArm(t, ctx, ix, ds)
	if got["hybrid"] < 0.95 {
		t.Errorf("hybrid nDCG@10 %.4f on exact references, want at least 0.95", got["hybrid"])
	}
}
