package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestLongQuestionScoresItsRarestWords checks that the full-text arm's work stops growing with
// the question: a 25-word question scores at most ten of its words, the rarest ones (the code
// and the rare words that find the passage survive, the commonest words go), and it corrects at
// most three unknown words, the longest, in one pass that still corrects several at once.
func TestLongQuestionScoresItsRarestWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.doc(t, "t", "common.md", "Office", "en", []string{"everyone"},
		"The office team meeting room schedule for every week: the team books the room each week in the office calendar.",
		"Every team may use the office kitchen; the team cleans the kitchen every week.")
	b.doc(t, "t", "rare.md", "Payments", "en", []string{"everyone"},
		"ERR_4402 means the payment gateway timed out during settlement reconciliation; page the treasury engineer.",
		"The office team reviews settlement reconciliation every week.")
	b.doc(t, "t", "people.md", "People", "en", []string{"everyone"},
		"Quarterly performance conversations happen with your manager; compensation adjustments follow.")
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md", "e.md", "f.md"} {
		b.doc(t, "t", name, "Team notes", "en", []string{"everyone"}, "Every week the office team meets; the team asks why the office is full every week.")
	}
	ctx := context.Background()
	everyone := rag.MustScope("everyone")
	words := func(terms []string) map[string]bool {
		out := map[string]bool{}
		for _, term := range terms {
			out[strings.TrimLeft(term, "=~→")] = true
		}
		return out
	}

	long := "every week the office team in the room and the kitchen sees ERR_4402 during settlement reconciliation with the treasury gateway, quarterly performance and compensation"
	hits, terms, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: long}, everyone, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := words(terms)
	for _, want := range []string{"4402", "settlement", "reconcili", "treasuri", "gateway", "quarter", "perform", "compens", "room", "kitchen"} {
		if !got[want] {
			t.Errorf("terms %v lack the rare %q", terms, want)
		}
	}
	if got["offic"] || got["team"] || got["week"] || got["everi"] {
		t.Errorf("terms %v keep the commonest words of a long question", terms)
	}
	if len(hits) == 0 {
		t.Fatalf("no hits (terms %v)", terms)
	}
	first, err := b.store.LoadHits(ctx, []int64{hits[0].ChunkID}, everyone)
	if err != nil || len(first) != 1 || first[0].Path != "rare.md" {
		t.Errorf("first hit %+v (%v): want rare.md", first, err)
	}

	// Five misspelt words: the three longest are corrected, in one query.
	_, terms, err = b.store.SearchFTS(ctx, rag.FTSQuery{Text: "quartrly perfomance conversatons compensaton managr"}, everyone, 10)
	if err != nil {
		t.Fatal(err)
	}
	fuzzy := 0
	for _, term := range terms {
		if strings.HasPrefix(term, "~") {
			fuzzy++
		}
	}
	got = words(terms)
	if !got["convers"] || !got["compens"] || !got["perform"] || got["quarter"] || got["manag"] {
		t.Errorf("terms %v: want the three longest misspellings corrected (conversatons, compensaton, perfomance) and no other", terms)
	}
	if fuzzy < 3 {
		t.Errorf("terms %v: %d corrections, want at least 3", terms, fuzzy)
	}
}
