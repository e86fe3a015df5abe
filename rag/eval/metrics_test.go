package eval

import (
	"math"
	"testing"
)

func TestScoreQuery(t *testing.T) {
	t.Parallel()
	rel := map[string]int{"a": 1, "b": 1}
	cases := []struct {
		ranked               []string
		ndcg, r10, mrr, r100 float64
	}{
		{[]string{"a", "b"}, 1, 1, 1, 1},
		{[]string{"x", "a"}, (1 / math.Log2(3)) / (1 + 1/math.Log2(3)), 0.5, 0.5, 0.5},
		{[]string{"x", "y"}, 0, 0, 0, 0},
	}
	for _, c := range cases {
		n, r10, mrr, r100 := scoreQuery(c.ranked, rel)
		if math.Abs(n-c.ndcg) > 1e-9 || r10 != c.r10 || mrr != c.mrr || r100 != c.r100 {
			t.Errorf("scoreQuery(%v) = %v %v %v %v, want %v %v %v %v", c.ranked, n, r10, mrr, r100, c.ndcg, c.r10, c.mrr, c.r100)
		}
	}
}
