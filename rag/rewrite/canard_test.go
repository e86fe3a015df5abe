package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/rag"
)

// loadSharedCanard returns the CANARD dev sample from CITA_SHARED_DIR, skipping without it.
func loadSharedCanard(t *testing.T) []Sample {
	t.Helper()
	dir := os.Getenv("CITA_SHARED_DIR")
	if dir == "" {
		t.Skip("CITA_SHARED_DIR is not set: the CANARD recovery measurement needs $CITA_SHARED_DIR/eval/canard/dev-sample.jsonl")
	}
	samples, err := LoadCanard(filepath.Join(dir, "eval", "canard", "dev-sample.jsonl"))
	if err != nil {
		t.Fatalf("load canard: %v", err)
	}
	if len(samples) < 100 {
		t.Fatalf("loaded %d canard samples, want the 600 of the dev sample", len(samples))
	}
	return samples
}

// TestOfflineCanardRecovery is the target: the offline rewriter recovers at least half of
// the terms the human rewrites added.
func TestOfflineCanardRecovery(t *testing.T) {
	t.Parallel()
	samples := loadSharedCanard(t)
	rec := CanardRecovery(context.Background(), Offline{}, samples)
	t.Logf("offline canard recovery over %d samples (%d scored, %d rewritten): mean %.3f, micro %.3f (%d/%d terms), precision of appended terms %.3f (%d appended)",
		rec.Samples, rec.Scored, rec.Rewritten, rec.Mean, rec.Micro, rec.Recovered, rec.Added, rec.Precision, rec.Appended)
	if rec.Errors != 0 {
		t.Errorf("offline rewriter failed on %d samples", rec.Errors)
	}
	if rec.Mean < 0.5 {
		t.Errorf("mean recovery %.3f, want >= 0.5", rec.Mean)
	}

	baseline := CanardRecovery(context.Background(), identity{}, samples)
	t.Logf("baseline (question unchanged): mean %.3f", baseline.Mean)
	if baseline.Mean != 0 || baseline.Rewritten != 0 {
		t.Errorf("identity rewriter: %+v, want no recovery (the metric counts only terms the question lacks)", baseline)
	}
}

type identity struct{}

func (identity) Rewrite(_ context.Context, q string, _ []rag.Turn) (string, error) { return q, nil }
