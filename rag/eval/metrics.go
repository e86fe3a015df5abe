package eval

import (
	"math"
	"slices"
	"time"
)

// Metrics are one mode's averages over the queries.
type Metrics struct {
	Mode      string  `json:"mode"`
	Queries   int     `json:"queries"`
	NDCG10    float64 `json:"ndcg@10"`
	Recall10  float64 `json:"recall@10"`
	MRR10     float64 `json:"mrr@10"`
	Recall100 float64 `json:"recall@100"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
}

// scoreQuery adds one ranked list of document ids (deduplicated, best first) to the sums.
func scoreQuery(ranked []string, rel map[string]int) (ndcg10, recall10, mrr10, recall100 float64) {
	var dcg float64
	found10, found100 := 0, 0
	for i, id := range ranked {
		g, ok := rel[id]
		if !ok || g <= 0 {
			continue
		}
		if i < 10 {
			dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i)+2)
			found10++
			if mrr10 == 0 {
				mrr10 = 1 / float64(i+1)
			}
		}
		if i < 100 {
			found100++
		}
	}
	var grades []int
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	slices.SortFunc(grades, func(a, b int) int { return b - a })
	var idcg float64
	for i, g := range grades {
		if i == 10 {
			break
		}
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i)+2)
	}
	if idcg > 0 {
		ndcg10 = dcg / idcg
	}
	if n := len(grades); n > 0 {
		recall10 = float64(found10) / float64(min(n, 10))
		recall100 = float64(found100) / float64(n)
	}
	return
}

func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	idx := int(math.Ceil(p*float64(len(s)))) - 1
	idx = max(0, min(idx, len(s)-1))
	return float64(s[idx].Microseconds()) / 1000
}
