package rag_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/rag"
)

// translatingSearcher answers with English passages and records the requests; its trace carries
// the request's translation, as the hybrid searcher's does.
type translatingSearcher struct{ reqs []rag.SearchRequest }

func (s *translatingSearcher) Search(_ context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
	s.reqs = append(s.reqs, req)
	return &rag.SearchResult{Hits: vacationHits(), Trace: rag.SearchTrace{Translated: req.Translation, TranslatedLang: "en"}}, nil
}

// bilingualRewriter is a rag.TranslatingRewriter with a fixed answer.
type bilingualRewriter struct{ rw rag.Rewritten }

func (b bilingualRewriter) Rewrite(context.Context, string, []rag.Turn) (string, error) {
	return b.rw.Query, nil
}

func (b bilingualRewriter) RewriteTranslated(context.Context, string, []rag.Turn) (rag.Rewritten, error) {
	return b.rw, nil
}

func TestPipelineSearchesTheRewritersTranslationAndJudgesByIt(t *testing.T) {
	t.Parallel()
	s := &translatingSearcher{}
	rw := bilingualRewriter{rag.Rewritten{
		Query:       "¿Cuántos días de vacaciones tienen los empleados de tiempo completo por año?",
		Translation: "How many vacation days do full-time employees get per year?",
	}}
	p := rag.NewPipeline(s, rag.Extractive{}, rw, rag.PipelineOptions{})
	ans, err := p.Answer(context.Background(), rag.Question{
		Text:    "¿y los de tiempo completo?",
		History: []rag.Turn{{Role: "user", Text: "¿Cuántos días de vacaciones tengo?"}},
		Scope:   rag.MustScope("hr"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.reqs) != 1 || s.reqs[0].Query != rw.rw.Query || s.reqs[0].Translation != rw.rw.Translation {
		t.Fatalf("search requests %+v, want the rewrite with its translation", s.reqs)
	}
	// The Spanish words share little with the English passage; its translation matches it.
	sources, _ := rag.AssembleSources(vacationHits(), 8, 1<<20)
	if spanishOnly := rag.Support(rag.ComposeRequest{Question: rw.rw.Query, Lang: "es", Sources: sources}); spanishOnly.Score >= rag.DefaultMinEvidence {
		t.Fatalf("test premise: the Spanish query alone scores %.2f, want below %.2f", spanishOnly.Score, rag.DefaultMinEvidence)
	}
	// The relevance guard passes it, and the extractive composer quotes the English passage.
	if ans.Abstained {
		t.Fatalf("abstained (%s, support %.2f) although the translated question matches the passage", ans.AbstainReason, ans.Evidence)
	}
	if len(ans.Sources) == 0 {
		t.Errorf("answer %q cites nothing", ans.Text)
	}
}
