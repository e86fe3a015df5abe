package bench

import (
	"slices"
	"strings"
	"testing"
)

// TestQuestionFrom checks the synthetic questions: 6-25 words, the asked length when fixed, the
// language's stop words, and most content words taken from the chunk.
func TestQuestionFrom(t *testing.T) {
	g := newCorpusGen(1)
	text := g.chunkText(3)
	chunkWords := strings.Fields(text)
	lengths := map[int]bool{}
	for i := range 400 {
		lang := []string{"es", "en"}[i%2]
		n := g.questionLength(0)
		q := g.questionFrom(text, n, lang)
		words := strings.Fields(strings.TrimSuffix(q, "?"))
		if len(words) != n || n < MinQuestionWords || n > MaxQuestionWords {
			t.Fatalf("%q: %d words, want %d within 6-25", q, len(words), n)
		}
		lengths[n] = true
		stop, fromChunk := stopWordsEN, 0
		if lang == "es" {
			stop = stopWordsES
		}
		stops := 0
		for _, w := range words {
			if slices.Contains(stop, strings.TrimLeft(w, "¿")) {
				stops++
			}
			if slices.Contains(chunkWords, w) {
				fromChunk++
			}
		}
		if stops < 2 || fromChunk < 1 {
			t.Fatalf("%q (%s): %d stop words and %d words of the chunk", q, lang, stops, fromChunk)
		}
	}
	if len(lengths) < 15 {
		t.Errorf("only %d distinct lengths in 400 questions", len(lengths))
	}
	if q := g.questionFrom(text, 18, "en"); len(strings.Fields(q)) != 18 {
		t.Errorf("fixed length 18: %q", q)
	}
}
