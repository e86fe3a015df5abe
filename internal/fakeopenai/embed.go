package fakeopenai

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
)

// HashVector returns a deterministic unit vector of length dim derived from a hash of text, so
// equal texts get equal vectors and tests can predict what the server returns.
func HashVector(text string, dim int) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := rng.Float64()*2 - 1
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}

// hashVectors is the default EmbedFunc: HashVector of each input, with the requested dimensions
// or the server's default.
func (s *Server) hashVectors(req Request) ([][]float32, *HTTPError) {
	dim := s.dimension
	if req.Dimensions > 0 {
		dim = req.Dimensions
	}
	out := make([][]float32, len(req.Input))
	for i, text := range req.Input {
		out[i] = HashVector(text, dim)
	}
	return out, nil
}

type embeddingItem struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// serveEmbeddings answers POST .../embeddings in OpenAI's shape.
func (s *Server) serveEmbeddings(w http.ResponseWriter, req Request) {
	vectors, herr := s.embed(req)
	if writeFuncFailure(w, req, herr, "EmbedFunc", len(vectors), len(req.Input), "vectors", "inputs") {
		return
	}
	data := make([]embeddingItem, len(vectors))
	tokens := 0
	for i, v := range vectors {
		data[i] = embeddingItem{Object: "embedding", Index: i, Embedding: v}
		tokens += len(strings.Fields(req.Input[i]))
	}
	if s.reverseEmbeddings {
		for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
			data[i], data[j] = data[j], data[i]
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
