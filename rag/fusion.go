package rag

import "sort"

// RRFK is the Reciprocal Rank Fusion constant: a hit at rank r in an arm contributes
// weight/(RRFK + r).
const RRFK = 60

// scoreFloor keeps the last hit of an arm contributing a little in score-aware fusion.
const scoreFloor = 0.05

// Fused is one chunk's fused score and its rank in each arm that returned it.
type Fused struct {
	ChunkID  int64
	Score    float64
	ArmRank  map[Arm]int
	ArmScore map[Arm]float64
}

// FuseRRF merges ranked lists with weighted Reciprocal Rank Fusion. Ties are broken by the best
// weighted arm rank, then by chunk id, so the order is deterministic.
//
// With scoreAware, each contribution is also scaled by the hit's min-max normalised score within
// its arm: plain RRF forgets how far apart an arm's scores are, so a weak arm's rank 1 can
// overturn a strong arm's clear winner; scaling keeps a confident arm's gaps.
func FuseRRF(arms map[Arm][]ArmHit, weights map[Arm]float64, scoreAware bool) []Fused {
	byID := map[int64]*Fused{}
	for arm, hits := range arms {
		w := weights[arm]
		if w <= 0 || len(hits) == 0 {
			continue
		}
		lo, hi := hits[0].Score, hits[0].Score
		for _, h := range hits {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		for _, h := range hits {
			scale := 1.0
			if scoreAware && hi > lo {
				scale = scoreFloor + (1-scoreFloor)*(h.Score-lo)/(hi-lo)
			}
			f := byID[h.ChunkID]
			if f == nil {
				f = &Fused{ChunkID: h.ChunkID, ArmRank: map[Arm]int{}, ArmScore: map[Arm]float64{}}
				byID[h.ChunkID] = f
			}
			f.Score += w * scale / float64(RRFK+h.Rank)
			f.ArmRank[arm] = h.Rank
			f.ArmScore[arm] = h.Score
		}
	}
	out := make([]Fused, 0, len(byID))
	for _, f := range byID {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if bi, bj := bestRank(out[i], weights), bestRank(out[j], weights); bi != bj {
			return bi < bj
		}
		return out[i].ChunkID < out[j].ChunkID
	})
	return out
}

func bestRank(f Fused, weights map[Arm]float64) float64 {
	best := 1e18
	for arm, r := range f.ArmRank {
		if w := weights[arm]; w > 0 {
			if v := float64(r) / w; v < best {
				best = v
			}
		}
	}
	return best
}
