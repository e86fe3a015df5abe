package rag_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/rag"
)

// tracedSearcher returns its hits with the given trace.
type tracedSearcher struct {
	hits  []rag.Hit
	trace rag.SearchTrace
}

func (s tracedSearcher) Search(context.Context, rag.SearchRequest) (*rag.SearchResult, error) {
	return &rag.SearchResult{Hits: append([]rag.Hit(nil), s.hits...), Trace: s.trace}, nil
}

func TestAnswerFoundWithoutItsTranslationIsNotCached(t *testing.T) {
	t.Parallel()
	question := rag.Question{Text: "How many vacation days do full-time employees get?", Scope: rag.MustScope("hr")}
	for _, tc := range []struct {
		name       string
		trace      rag.SearchTrace
		wantStored bool
	}{
		{"translated", rag.SearchTrace{Translated: "¿Cuántos días de vacaciones?", TranslatedLang: "es"}, true},
		{"no translator", rag.SearchTrace{}, true},
		{"translator down", rag.SearchTrace{TranslationMissing: "translator failed: apertium eng-spa: down since 10:00:00"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stored := 0
			cache := &fakeCache{
				LookupFunc: func(context.Context, rag.CacheKey) (*rag.Answer, error) { return nil, nil },
				StoreFunc:  func(context.Context, rag.CacheKey, *rag.Answer) error { stored++; return nil },
			}
			p := rag.NewPipeline(tracedSearcher{hits: vacationHits(), trace: tc.trace}, rag.Extractive{}, nil,
				rag.PipelineOptions{Cache: cache, Logger: slog.New(slog.DiscardHandler)})
			ans, err := p.Answer(context.Background(), question, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := stored == 1; got != tc.wantStored {
				t.Errorf("stored %d times (abstained %v), want stored: %v", stored, ans.Abstained, tc.wantStored)
			}
		})
	}
}
