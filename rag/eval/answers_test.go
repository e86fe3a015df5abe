package eval

import (
	"os"
	"path/filepath"
	"testing"
)

// A hedged reply that holds the fact is not a confident answer, an unanswerable question
// hedged is not answered confidently, and the direction splits by the gold page's language.
func TestSummarizeCountsHedgedRepliesApart(t *testing.T) {
	t.Parallel()
	outs := []AnswerOutcome{
		{Answerable: true, HasFact: true, FirstGold: true, Direction: "es>en"},
		{Answerable: true, HasFact: true, FirstGold: true, Hedged: true, Direction: "es>en"},
		{Answerable: true, Abstained: true, Direction: "es>en"},
		{Answerable: true, FirstGold: true, Direction: "en>en"},
		{Answerable: false, Hedged: true, Direction: "out:en"},
		{Answerable: false, Abstained: true, Direction: "out:en"},
		{Answerable: false, Direction: "out:en"},
	}
	m := summarize(outs)
	if m.HasFact != 0.5 || m.ConfidentFact != 0.25 || m.Hedged != 0.25 || m.FalseRefusals != 0.25 {
		t.Errorf("answerable: fact %.2f confident %.2f hedged %.2f refused %.2f, want 0.50 0.25 0.25 0.25",
			m.HasFact, m.ConfidentFact, m.Hedged, m.FalseRefusals)
	}
	// Three replies had a gold first source; two of them hold the fact.
	if want := 2.0 / 3; m.FirstGoldFact != want {
		t.Errorf("first-gold fact = %.3f, want %.3f", m.FirstGoldFact, want)
	}
	third := 1.0 / 3
	if m.Declined != third || m.HedgedOut != third || m.ConfidentOut != third {
		t.Errorf("unanswerable: declined %.2f hedged %.2f confident %.2f, want a third each", m.Declined, m.HedgedOut, m.ConfidentOut)
	}
	by := summarizeBy(outs, func(o AnswerOutcome) string { return o.Direction })
	if by["es>en"].Answerable != 3 || by["en>en"].Answerable != 1 || by["out:en"].Unanswerable != 3 {
		t.Errorf("by direction: %+v", by)
	}
	if !outs[1].Miss() || outs[0].Miss() || !outs[6].Miss() || outs[4].Miss() {
		t.Error("Miss: a hedged answer with the fact is a miss, a hedged unanswerable question is not")
	}
}

func TestGoldPageLanguageIsReadFromTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("es.md", "---\ntitle: The policy\n---\nLas personas de la oficina tienen derecho a veinte días de vacaciones por año, que se pueden tomar cuando quieran.")
	write("en.md", "Everyone in the office is entitled to twenty days of holiday a year, which they can take when they wish.")
	write("codes.csv", "code,price\nA-1,10\n")
	set := &AnswerSet{CorpusDir: dir, Questions: []AnswerQuestion{
		{ID: "1", Lang: "en", Answerable: true, GoldFiles: []string{"es.md"}},
		{ID: "2", Lang: "es", Answerable: true, GoldFiles: []string{"en.md"}},
		{ID: "3", Lang: "es", Answerable: true, GoldFiles: []string{"codes.csv"}},
		{ID: "4", Lang: "es"},
	}}
	langs := goldPageLangs(set)
	for i, want := range []string{"en>es", "es>en", "es>?", "out:es"} {
		if got := direction(set.Questions[i], langs); got != want {
			t.Errorf("question %s: direction %q, want %q", set.Questions[i].ID, got, want)
		}
	}
}
