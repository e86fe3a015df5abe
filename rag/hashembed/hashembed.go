// Package hashembed is cita's built-in embedder: deterministic, offline, and fast. It hashes
// words, word prefixes (a light stemmer that makes "vacación" and "vacaciones" meet) and character
// trigrams (typo tolerance: "agronegosios" still lands near "agronegocios") into a fixed number of
// signed buckets, then L2-normalizes. It knows no synonyms; an OpenAI-compatible model does better
// on paraphrases.
package hashembed

import (
	"context"
	"hash/fnv"
	"math"
	"unicode"

	"github.com/citahq/cita/rag"
)

// Model is the name the index records for this embedder's vectors; bump the version suffix when
// the features change, so old vectors are re-embedded rather than mixed.
const Model = "cita-hash-v1"

// DefaultDimension is the number of hash buckets.
const DefaultDimension = 384

const (
	wordWeight    = 1.0
	prefixWeight  = 1.0
	trigramWeight = 0.8
	prefixLen     = 6
)

// Embedder is the built-in embedder. The zero value is not usable; use New.
type Embedder struct {
	dim int
}

// New returns an embedder producing vectors of dim dimensions (DefaultDimension when dim <= 0).
func New(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultDimension
	}
	return &Embedder{dim: dim}
}

// Info returns the model name and dimension.
func (e *Embedder) Info() rag.EmbedderInfo {
	return rag.EmbedderInfo{Model: Model, Dimension: e.dim}
}

// Embed implements rag.Embedder. It never fails except on a cancelled context.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func (e *Embedder) Vector(text string) []float32 {
	acc := make([]float64, e.dim)
	counts := map[string]int{}
	for _, w := range rag.ContentTokens(text) {
		counts[w]++
	}
	for w, n := range counts {
		tf := 1 + math.Log(float64(n)) // sublinear: a word repeated ten times is not ten times the topic
		e.add(acc, "w\x00"+w, wordWeight*tf)
		r := []rune(w)
		if len(r) > prefixLen {
			e.add(acc, "p\x00"+string(r[:prefixLen]), prefixWeight*tf)
		} else {
			e.add(acc, "p\x00"+w, prefixWeight*tf)
		}
		if len(r) >= 4 && !isNumeric(r) {
			padded := append(append([]rune{'<'}, r...), '>')
			grams := len(padded) - 2
			gw := trigramWeight * tf / math.Sqrt(float64(grams))
			for i := 0; i+3 <= len(padded); i++ {
				e.add(acc, "g\x00"+string(padded[i:i+3]), gw)
			}
		}
	}
	var norm2 float64
	for _, v := range acc {
		norm2 += v * v
	}
	vec := make([]float32, e.dim)
	if norm2 == 0 {
		vec[0] = 1 // an empty text still gets a valid unit vector for cosine distance
		return vec
	}
	inv := 1 / math.Sqrt(norm2)
	for i, v := range acc {
		vec[i] = float32(v * inv)
	}
	return vec
}

func (e *Embedder) add(acc []float64, feature string, w float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	sum := h.Sum64()
	idx := int(sum % uint64(e.dim))
	if sum>>63 == 1 {
		w = -w
	}
	acc[idx] += w
}

func isNumeric(r []rune) bool {
	for _, c := range r {
		if !unicode.IsDigit(c) && c != '.' && c != ',' {
			return false
		}
	}
	return true
}
