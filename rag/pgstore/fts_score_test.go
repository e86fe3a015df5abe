package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestFullTextReadsOnlyWhatCanEnterTheTopK holds the pruned full-text arm, without a budget,
// to the exhaustive one: on a corpus with rare, middling and common words, questions mixing them get the same
// ranking (the same chunks, in the same order) as when every chunk holding any of their words
// is read and scored, while the pruned arm reads fewer chunks whenever the common words'
// bounds cannot lift a chunk into the top k.
func TestFullTextReadsOnlyWhatCanEnterTheTopK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	rng := rand.New(rand.NewPCG(33, 3))
	word := func(prefix string, i int) string { return fmt.Sprintf("%s%c%c", prefix, 'a'+i%26, 'a'+i/26) }
	var rare, middling, common []string
	for i := range 40 {
		rare = append(rare, word("zorbit", i))
	}
	for i := range 12 {
		middling = append(middling, word("quelmar", i))
	}
	for i := range 4 {
		common = append(common, word("frondel", i))
	}
	// Per chunk: most of the common words, each middling word one time in six (about 65
	// chunks each, two or three of them per chunk), and a rare word four times in five (about
	// eight chunks each): a question's rare words fill a small top k, and a chunk holding
	// several of its middling words can still outrank one holding a single rare word.
	for d := range 40 {
		texts := make([]string, 10)
		for i := range texts {
			var w []string
			for range 8 {
				w = append(w, common[rng.IntN(len(common))])
			}
			for _, m := range middling {
				if rng.IntN(6) == 0 {
					w = append(w, m)
				}
			}
			if rng.IntN(5) != 0 {
				w = append(w, rare[rng.IntN(len(rare))])
			}
			rng.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
			texts[i] = strings.Join(w, " ")
		}
		b.doc(t, "s", fmt.Sprintf("d%d.md", d), fmt.Sprintf("Nota %d", d), "es", []string{"everyone"}, texts...)
	}
	scope := rag.MustScope("everyone")
	exhaustive := b.store.Exhaustive()
	// No budget: what the arm leaves unread here, its bounds alone left.
	b.store.FTSCandidateBudget = 1 << 30
	pruned := 0
	for q := range 30 {
		words := []string{rare[rng.IntN(len(rare))], rare[rng.IntN(len(rare))], middling[rng.IntN(len(middling))],
			middling[rng.IntN(len(middling))], middling[rng.IntN(len(middling))], middling[rng.IntN(len(middling))],
			common[rng.IntN(len(common))], common[rng.IntN(len(common))]}
		query := rag.FTSQuery{Text: strings.Join(words, " ")}
		k := []int{3, 5, 10}[q%3]
		want, all, err := exhaustive.SearchFTSReads(ctx, query, scope, k)
		if err != nil {
			t.Fatal(err)
		}
		got, read, err := b.store.SearchFTSReads(ctx, query, scope, k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(chunkIDs(got), chunkIDs(want)) {
			t.Fatalf("%q, k %d: pruned %v, exhaustive %v", query.Text, k, chunkIDs(got), chunkIDs(want))
		}
		for i := range got {
			if d := got[i].Score - want[i].Score; d > 1e-9 || d < -1e-9 {
				t.Fatalf("%q: hit %d scored %v, exhaustively %v", query.Text, i, got[i].Score, want[i].Score)
			}
		}
		if read > all {
			t.Fatalf("%q: the pruned arm read %d chunks, more than every candidate (%d)", query.Text, read, all)
		}
		if read < all {
			pruned++
		}
	}
	// The common words' bounds are low: most questions' top k is settled without them.
	if pruned < 20 {
		t.Fatalf("the pruned arm read fewer chunks than the exhaustive one on %d of 30 questions, want most", pruned)
	}
	t.Logf("pruned on %d of 30 questions", pruned)
}
