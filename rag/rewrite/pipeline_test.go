package rewrite

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

// recordingSearcher is a rag.Searcher that records the queries it is asked and finds nothing.
type recordingSearcher struct {
	mu      sync.Mutex
	queries []string
}

func (s *recordingSearcher) Search(_ context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, req.Query)
	return &rag.SearchResult{}, nil
}

// TestPipelineSearchesTheRewrite checks both rewriters through rag.Pipeline: the standalone query
// is what gets searched and what the answer reports.
func TestPipelineSearchesTheRewrite(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, reply("How do I deploy billing-api to staging?"))
	offlineWant, _ := Offline{}.Rewrite(context.Background(), "and for staging?", deployThread)
	for name, tc := range map[string]struct {
		rewriter rag.Rewriter
		want     string
	}{
		"llm":     {NewLLM(newLLM(t, srv).model, nil), "How do I deploy billing-api to staging?"},
		"offline": {Offline{}, offlineWant},
	} {
		searcher := &recordingSearcher{}
		p := rag.NewPipeline(searcher, rag.Extractive{}, tc.rewriter, rag.PipelineOptions{})
		ans, err := p.Answer(context.Background(), rag.Question{Text: "and for staging?", History: deployThread, Scope: rag.MustScope("eng")}, nil)
		if err != nil {
			t.Fatalf("%s: Answer: %v", name, err)
		}
		if ans.StandaloneQuery != tc.want || len(searcher.queries) != 1 || searcher.queries[0] != tc.want {
			t.Errorf("%s: standalone %q, searched %q; want %q", name, ans.StandaloneQuery, searcher.queries, tc.want)
		}
	}
}

// recordingRewriter remembers the history it was given.
type recordingRewriter struct{ got []rag.Turn }

func (r *recordingRewriter) Rewrite(_ context.Context, q string, history []rag.Turn) (string, error) {
	r.got = history
	return q, nil
}

func TestPipelineNeverFeedsAbstentionsToTheRewriter(t *testing.T) {
	t.Parallel()
	rw := &recordingRewriter{}
	p := rag.NewPipeline(&recordingSearcher{}, rag.Extractive{}, rw, rag.PipelineOptions{})
	history := []rag.Turn{
		{Role: "user", Text: "is there paternity leave?"},
		{Role: "assistant", Text: "I couldn't find this in our documentation. You could ask Paula Henao.", Abstained: true},
	}
	if _, err := p.Answer(context.Background(), rag.Question{Text: "and do they carry over?", History: history, Scope: rag.MustScope("everyone")}, nil); err != nil {
		t.Fatal(err)
	}
	for _, turn := range rw.got {
		if strings.Contains(turn.Text, "Paula Henao") {
			t.Errorf("the rewriter saw the abstention turn %q", turn.Text)
		}
	}
	if len(rw.got) != 1 {
		t.Errorf("rewriter got %d turns, want the user's question only", len(rw.got))
	}
}
