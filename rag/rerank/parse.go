package rerank

import (
	"encoding/json"
	"fmt"
	"math"
)

// scoredIndex is one result in either flavor: Cohere/Jina name the score relevance_score, TEI
// names it score.
type scoredIndex struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// parseScores decodes a /rerank answer for n documents into scores in input order. It returns an
// error when the body is not the flavor's shape, an index is out of range or repeated, a score is
// missing or not finite, or some document got no score.
func parseScores(flavor string, body []byte, n int) ([]float64, error) {
	var results []scoredIndex
	if flavor == FlavorTEI {
		if err := json.Unmarshal(body, &results); err != nil {
			return nil, fmt.Errorf("decode TEI response (want [{\"index\",\"score\"}]): %w", err)
		}
	} else {
		var wrapped struct {
			Results *[]scoredIndex `json:"results"`
		}
		if err := json.Unmarshal(body, &wrapped); err != nil {
			return nil, fmt.Errorf("decode response (want {\"results\":[{\"index\",\"relevance_score\"}]}): %w", err)
		}
		if wrapped.Results == nil {
			return nil, fmt.Errorf("response has no \"results\" field (is Flavor %q right for this server?)", flavor)
		}
		results = *wrapped.Results
	}
	scores := make([]float64, n)
	seen := make([]bool, n)
	for i, r := range results {
		if r.Index == nil || *r.Index < 0 || *r.Index >= n {
			return nil, fmt.Errorf("result %d has a missing or out-of-range index (documents: %d)", i, n)
		}
		if seen[*r.Index] {
			return nil, fmt.Errorf("document %d scored twice", *r.Index)
		}
		score := r.RelevanceScore
		if score == nil {
			score = r.Score
		}
		if score == nil || math.IsNaN(*score) || math.IsInf(*score, 0) {
			return nil, fmt.Errorf("result %d (document %d) has no finite score", i, *r.Index)
		}
		scores[*r.Index], seen[*r.Index] = *score, true
	}
	if len(results) != n {
		return nil, fmt.Errorf("response scored %d of %d documents", len(results), n)
	}
	return scores, nil
}
