package fakeopenai

import (
	"net/http"
	"sort"
	"strings"
)

// wordOverlapScores is the default RerankFunc: the share of the query's words found in each
// document, so documents sharing more words with the query score higher.
func wordOverlapScores(req Request) ([]float64, *HTTPError) {
	queryWords := strings.Fields(strings.ToLower(req.Query))
	scores := make([]float64, len(req.Documents))
	if len(queryWords) == 0 {
		return scores, nil
	}
	for i, doc := range req.Documents {
		docWords := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(doc)) {
			docWords[w] = true
		}
		hits := 0
		for _, w := range queryWords {
			if docWords[w] {
				hits++
			}
		}
		scores[i] = float64(hits) / float64(len(queryWords))
	}
	return scores, nil
}

// serveRerank answers POST /rerank and /v1/rerank: Cohere/Jina's {"results":[{"index",
// "relevance_score"}]} limited to top_n, or TEI's bare [{"index","score"}], both best first.
func (s *Server) serveRerank(w http.ResponseWriter, req Request) {
	scores, herr := s.rerank(req)
	if writeFuncFailure(w, req, herr, "RerankFunc", len(scores), len(req.Documents), "scores", "documents") {
		return
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })

	if req.Flavor == "tei" {
		out := make([]map[string]any, len(order))
		for rank, i := range order {
			out[rank] = map[string]any{"index": i, "score": scores[i]}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if req.TopN > 0 && req.TopN < len(order) {
		order = order[:req.TopN]
	}
	results := make([]map[string]any, len(order))
	for rank, i := range order {
		results[rank] = map[string]any{"index": i, "relevance_score": scores[i]}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "rerank-fake", "results": results})
}
