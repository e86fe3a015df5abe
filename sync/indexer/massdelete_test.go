package indexer

import "testing"

func TestMassDeletion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, total int
		fraction float64
		want     bool
	}{
		{0, 0, 0.2, false},
		{0, 10, 0, false},
		{1, 3, 0.2, false}, // ordinary churn in a small source
		{2, 3, 0.2, false}, // still under the floor
		{3, 3, 0.2, true},  // all of them: an unmounted share
		{1, 1, 1, true},    // all of them, whatever the fraction
		{3, 4, 0.2, false}, // the floor
		{4, 5, 0.2, true},  // above the floor and the fraction
		{20, 100, 0.2, false},
		{21, 100, 0.2, true},
		{21, 100, 0.25, false},
		{99, 100, 1, false}, // fraction 1: only "all" is held back
		{4, 100, 0, true},   // fraction 0: only the floor passes
		{3, 100, 0, false},
	} {
		if got := massDeletion(tc.n, tc.total, tc.fraction); got != tc.want {
			t.Errorf("massDeletion(%d of %d, %.2f) = %v, want %v", tc.n, tc.total, tc.fraction, got, tc.want)
		}
	}
}
