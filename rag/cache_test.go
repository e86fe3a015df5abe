package rag_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

func TestNormalizeQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"¿Cuántos  días de VACACIONES tengo?", "cuantos dias de vacaciones tengo"},
		{"cuantos dias de vacaciones tengo", "cuantos dias de vacaciones tengo"},
		{"  How many\tvacation\ndays?!  ", "how many vacation days"},
		{"¡Hola!", "hola"},
		{"What does ERR_4402 mean?", "what does err_4402 mean"},
		{"Is 5.440.000 the budget…", "is 5.440.000 the budget"},
		{"What is C#?", "what is c#"},
		{"What is C?", "what is c"},
		{"C++", "c++"},
		{"Ｆｕｌｌｗｉｄｔｈ", "fullwidth"},
		{"???", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := rag.NormalizeQuery(tc.in); got != tc.want {
			t.Errorf("NormalizeQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNormalizeQuery checks the properties keys rely on, for any input: normalizing twice changes
// nothing, and the result has no double or edge spaces and no edge punctuation.
func FuzzNormalizeQuery(f *testing.F) {
	for _, s := range []string{"¿Cuántos días?", "ERR_4402", " a  b ", "Ǆ ǅ", "İstanbul", "ﬁn…"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := rag.NormalizeQuery(s)
		if again := rag.NormalizeQuery(n); again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, again)
		}
		if strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Fatalf("%q -> %q has stray spaces", s, n)
		}
		if n != "" && (strings.ContainsAny(n[:1], "?!.,;: ") || strings.ContainsAny(n[len(n)-1:], "?!.,;: ")) {
			t.Fatalf("%q -> %q keeps edge punctuation", s, n)
		}
	})
}

// fakeCache is a rag.AnswerCache whose behaviour comes from its Func fields.
type fakeCache struct {
	LookupFunc func(ctx context.Context, key rag.CacheKey) (*rag.Answer, error)
	StoreFunc  func(ctx context.Context, key rag.CacheKey, ans *rag.Answer) error
}

func (f *fakeCache) Lookup(ctx context.Context, key rag.CacheKey) (*rag.Answer, error) {
	return f.LookupFunc(ctx, key)
}

func (f *fakeCache) Store(ctx context.Context, key rag.CacheKey, ans *rag.Answer) error {
	return f.StoreFunc(ctx, key, ans)
}

// fixedSearcher returns its hits for any query and counts calls.
type fixedSearcher struct {
	hits  []rag.Hit
	calls int
	limit int
}

func (s *fixedSearcher) Search(_ context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
	s.calls++
	s.limit = req.Limit
	return &rag.SearchResult{Hits: append([]rag.Hit(nil), s.hits...)}, nil
}

// rewriterFunc is a rag.Rewriter.
type rewriterFunc func(question string, history []rag.Turn) string

func (f rewriterFunc) Rewrite(_ context.Context, q string, h []rag.Turn) (string, error) {
	return f(q, h), nil
}

func vacationHits() []rag.Hit {
	return []rag.Hit{{ChunkID: 1, DocumentID: 10, DocVersion: 3, Title: "Vacations", Heading: "Vacations",
		Content: "Full-time employees get 23 working days of vacation per year."}}
}

func TestPipelineCache(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.DiscardHandler)
	scope := rag.MustScope("hr")
	question := rag.Question{Text: "How many vacation days do full-time employees get?", Scope: scope}

	t.Run("a hit skips search and streams its text once", func(t *testing.T) {
		t.Parallel()
		s := &fixedSearcher{hits: vacationHits()}
		var gotKey rag.CacheKey
		cache := &fakeCache{
			LookupFunc: func(_ context.Context, k rag.CacheKey) (*rag.Answer, error) {
				gotKey = k
				return &rag.Answer{Text: "23 days [1].", Lang: "en"}, nil
			},
			StoreFunc: func(context.Context, rag.CacheKey, *rag.Answer) error { t.Error("stored a hit"); return nil },
		}
		p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{Cache: cache, Logger: quiet})
		var deltas []string
		ans, err := p.Answer(context.Background(), question, func(d string) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatal(err)
		}
		want := rag.CacheKey{Query: "how many vacation days do full-time employees get", Scope: scope.Key(), Lang: "en"}
		if !ans.Cached || s.calls != 0 || gotKey != want || strings.Join(deltas, "|") != "23 days [1]." {
			t.Errorf("cached=%v searches=%d key=%+v deltas=%q", ans.Cached, s.calls, gotKey, deltas)
		}
	})

	t.Run("cache errors are logged, not returned", func(t *testing.T) {
		t.Parallel()
		s := &fixedSearcher{hits: vacationHits()}
		stored := 0
		cache := &fakeCache{
			LookupFunc: func(context.Context, rag.CacheKey) (*rag.Answer, error) { return nil, errors.New("db down") },
			StoreFunc:  func(context.Context, rag.CacheKey, *rag.Answer) error { stored++; return errors.New("db down") },
		}
		p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{Cache: cache, Logger: quiet})
		ans, err := p.Answer(context.Background(), question, nil)
		if err != nil || ans.Cached || ans.Abstained || s.calls != 1 || stored != 1 {
			t.Errorf("err=%v cached=%v abstained=%v searches=%d stores=%d", err, ans.Cached, ans.Abstained, s.calls, stored)
		}
	})

	t.Run("a follow-up is keyed on its standalone query", func(t *testing.T) {
		t.Parallel()
		s := &fixedSearcher{hits: vacationHits()}
		var looked, storedKey rag.CacheKey
		var storedAns *rag.Answer
		cache := &fakeCache{
			LookupFunc: func(_ context.Context, k rag.CacheKey) (*rag.Answer, error) { looked = k; return nil, nil },
			StoreFunc: func(_ context.Context, k rag.CacheKey, a *rag.Answer) error {
				storedKey, storedAns = k, a
				return nil
			},
		}
		rw := rewriterFunc(func(q string, _ []rag.Turn) string { return "vacation days for part-time employees" })
		p := rag.NewPipeline(s, rag.Extractive{}, rw, rag.PipelineOptions{Cache: cache, Logger: quiet})
		q := rag.Question{Text: "and part-time?", Scope: scope, History: []rag.Turn{{Role: "user", Text: "vacation days?"}}}
		ans, err := p.Answer(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := rag.CacheKey{Query: "vacation days for part-time employees", Scope: scope.Key(), Lang: "en"}
		if looked != want || storedKey != want || storedAns != ans {
			t.Errorf("lookup %+v, store %+v, want both %+v with the returned answer", looked, storedKey, want)
		}
	})

	t.Run("no cache", func(t *testing.T) {
		t.Parallel()
		s := &fixedSearcher{hits: vacationHits()}
		p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{Logger: quiet})
		for range 2 {
			if ans, err := p.Answer(context.Background(), question, nil); err != nil || ans.Cached {
				t.Fatalf("err=%v cached=%v", err, ans.Cached)
			}
		}
		if s.calls != 2 {
			t.Errorf("%d searches for two questions without a cache", s.calls)
		}
	})
}
