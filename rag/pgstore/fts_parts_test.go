package pgstore_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// The full-text arm split in two parts, so the asked words are searched while the translation
// is made: each part scores only its own words, and their scores add up to the whole query's.
func TestFullTextPartsAddUpToTheWholeQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	scope := rag.MustScope("everyone", "engineering", "hr")
	q := rag.FTSQuery{Text: "How many vacation days do I get per year?", Alt: "Cuántos días de vacaciones por año", AltWeight: 0.7}
	search := func(part rag.FTSPart) (map[int64]float64, []string) {
		t.Helper()
		q.Part = part
		hits, terms, err := b.store.SearchFTS(context.Background(), q, scope, 50)
		if err != nil {
			t.Fatal(err)
		}
		scores := map[int64]float64{}
		for _, h := range hits {
			scores[h.ChunkID] = h.Score
		}
		scored := terms[:0]
		for _, term := range terms {
			if !strings.HasPrefix(term, rag.UnknownWordLabel) && !strings.HasPrefix(term, rag.KnownWordLabel) {
				scored = append(scored, term)
			}
		}
		return scores, scored
	}
	all, allTerms := search(rag.FTSAll)
	// The labels about the question's words (unknown "?", known through a rendering "+") are
	// not scored terms.
	asked, askedTerms := search(rag.FTSAsked)
	extra, extraTerms := search(rag.FTSExtra)
	if len(asked) == 0 || len(extra) == 0 {
		t.Fatalf("asked part found %d chunks, extra part %d: the seed corpus should answer both", len(asked), len(extra))
	}
	if slices.ContainsFunc(askedTerms, func(s string) bool { return strings.HasPrefix(s, "→") }) {
		t.Errorf("asked part scored translated terms: %v", askedTerms)
	}
	if len(extraTerms) == 0 || slices.ContainsFunc(extraTerms, func(s string) bool { return !strings.HasPrefix(s, "→") && !strings.HasPrefix(s, "~") }) {
		t.Errorf("extra part scored %v, want only translated terms (→) and corrections (~)", extraTerms)
	}
	if len(allTerms) != len(askedTerms)+len(extraTerms) {
		t.Errorf("whole query's terms %v are not the asked %v and the extra %v", allTerms, askedTerms, extraTerms)
	}
	for id, want := range all {
		if got := asked[id] + extra[id]; math.Abs(got-want) > 1e-9 {
			t.Errorf("chunk %d: asked %.4f + extra %.4f = %.4f, want the whole query's %.4f", id, asked[id], extra[id], got, want)
		}
	}
}

// A part's hits are summed with the other part's, so a chunk tied with the k-th must come back
// whatever its id: cut by id, whether it gets both parts' scores would depend on the order the
// chunks were written in (an eval answered the same question two ways on two runs).
func TestFullTextPartKeepsEveryChunkTiedWithTheLast(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 4 {
		b.doc(t, "ties", fmt.Sprintf("t%d", i), fmt.Sprintf("Note %d", i), "en", []string{"everyone"},
			"The parking garage opens at seven in the morning.")
	}
	b.doc(t, "ties", "top", "Parking", "en", []string{"everyone"}, "Parking garage rules: the parking garage opens early.")
	scope := rag.MustScope("everyone")
	q := rag.FTSQuery{Text: "when does the parking garage open", Alt: "cuándo abre el garaje", AltWeight: 0.7}
	for _, tc := range []struct {
		part rag.FTSPart
		want int
	}{{rag.FTSAll, 3}, {rag.FTSAsked, 5}} {
		q.Part = tc.part
		hits, _, err := b.store.SearchFTS(context.Background(), q, scope, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != tc.want {
			t.Errorf("part %d with k 3: %d hits, want %d (the four tied notes are all kept only by a part)", tc.part, len(hits), tc.want)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score || hits[i].Rank != i+1 {
				t.Errorf("part %d: hits out of order at %d: %+v", tc.part, i, hits)
			}
		}
	}
}
