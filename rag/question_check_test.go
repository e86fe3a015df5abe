package rag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestMessagesThatAreNotQuestionsGetAReason: a message of emoji or symbols, even in a thread
// with earlier turns, and a message over the limit are neither rewritten nor searched; the reply
// says why (and the limit). Control characters never reach the search.
func TestMessagesThatAreNotQuestionsGetAReason(t *testing.T) {
	t.Parallel()
	history := []rag.Turn{{Role: "user", Text: "¿Cuántos días de vacaciones tengo?"}, {Role: "assistant", Text: "Tienes 23 días [1]."}}
	rw := bilingualRewriter{rag.Rewritten{Query: "¿Cuántos días de vacaciones tengo?"}}
	for _, tc := range []struct {
		name, text   string
		history      []rag.Turn
		reason, lang string
		mustSay      string
	}{
		{name: "emoji in a thread", text: "👍🎉", history: history, reason: rag.AbstainNotAQuestion, lang: "es", mustSay: "no parece una pregunta"},
		{name: "symbols", text: " ?!… ", reason: rag.AbstainNotAQuestion, lang: "en", mustSay: "doesn't look like a question"},
		{name: "control characters only", text: "\x00\x1b\u200b", reason: rag.AbstainNotAQuestion, lang: "en"},
		{name: "40 KB", text: strings.Repeat("how many vacation days do I get? ", 1250), reason: rag.AbstainTooLong, lang: "en", mustSay: "2,000 characters"},
		{name: "40 KB in Spanish", text: strings.Repeat("¿cuántos días de vacaciones tengo? ", 1200), reason: rag.AbstainTooLong, lang: "es", mustSay: "2.000 caracteres"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &translatingSearcher{}
			p := rag.NewPipeline(s, rag.Extractive{}, rw, rag.PipelineOptions{})
			var streamed string
			ans, err := p.Answer(context.Background(), rag.Question{Text: tc.text, History: tc.history, Scope: rag.MustScope("hr")},
				func(d string) { streamed += d })
			if err != nil {
				t.Fatal(err)
			}
			if len(s.reqs) != 0 {
				t.Errorf("searched %q; want no search", s.reqs[0].Query)
			}
			if !ans.Abstained || ans.AbstainReason != tc.reason || ans.Lang != tc.lang || len(ans.Sources) != 0 {
				t.Errorf("answer %+v; want an abstention %q in %s", ans, tc.reason, tc.lang)
			}
			if !strings.Contains(ans.Text, tc.mustSay) || streamed != ans.Text {
				t.Errorf("reply %q (streamed %q); want it to say %q", ans.Text, streamed, tc.mustSay)
			}
		})
	}
}

func TestQuestionsAreCleanedBeforeSearch(t *testing.T) {
	t.Parallel()
	s := &translatingSearcher{}
	p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{})
	ans, err := p.Answer(context.Background(), rag.Question{Text: "how many\nvacation days\x00 do I get?\x1b[0m\xff", Scope: rag.MustScope("hr")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "how many vacation days do I get?[0m"
	if len(s.reqs) != 1 || s.reqs[0].Query != want || ans.Question != want {
		t.Fatalf("searched %+v, answer question %q; want %q", s.reqs, ans.Question, want)
	}
}
