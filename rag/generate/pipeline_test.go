package generate

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

// fakeSearcher is a rag.Searcher whose results come from SearchFunc.
type fakeSearcher struct {
	SearchFunc func(ctx context.Context, req rag.SearchRequest) (*rag.SearchResult, error)
}

func (f fakeSearcher) Search(ctx context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
	return f.SearchFunc(ctx, req)
}

// hitsSearcher returns the vacation sources' hits for any query.
func hitsSearcher() fakeSearcher {
	return fakeSearcher{SearchFunc: func(_ context.Context, req rag.SearchRequest) (*rag.SearchResult, error) {
		if req.Scope.Empty() {
			return nil, rag.ErrNoScope
		}
		var hits []rag.Hit
		for _, s := range vacationSources() {
			hits = append(hits, s.Hit)
		}
		return &rag.SearchResult{Hits: hits}, nil
	}}
}

// newOnlinePipeline is the pipeline cmd/cita wires when a chat endpoint is configured, minus the
// rewriter: a searcher, and LLMComposer over the real client against srv.
func newOnlinePipeline(t *testing.T, srv *fakeopenai.Server) *rag.Pipeline {
	t.Helper()
	return rag.NewPipeline(hitsSearcher(), NewLLMComposer(newChat(t, srv, -1)), nil, rag.PipelineOptions{})
}

func TestPipelineVerifiesCitations(t *testing.T) {
	t.Parallel()
	const owner = "Ana Pérez (People team)"
	tests := []struct {
		name        string
		question    string
		reply       string
		wantText    string
		wantSources []int64 // chunk ids of the cited sources, in their new order
		abstained   bool
		reason      string // the abstention reason; "" means no_valid_citation
	}{
		{
			name:        "citation to a missing source is removed",
			question:    "How many vacation days do I get?",
			reply:       "Full-time employees get 23 working days of vacation [1]. Unused days expire on 31 March [7].",
			wantText:    "Full-time employees get 23 working days of vacation [1]. Unused days expire on 31 March.",
			wantSources: []int64{11},
		},
		{
			name:        "cited sources are renumbered in strength order",
			question:    "How many vacation days do I get?",
			reply:       "The older policy said 22 days [2]; San Isidro is a holiday in Madrid [3].",
			wantText:    "The older policy said 22 days [1]; San Isidro is a holiday in Madrid [2].",
			wantSources: []int64{21, 31},
		},
		{
			name:      "no valid citation becomes an abstention",
			question:  "How many vacation days do I get?",
			reply:     "You get 30 days of vacation [7].",
			wantText:  rag.NotFoundText("en", owner),
			abstained: true,
		},
		{
			name:      "uncited answer becomes an abstention",
			question:  "How many vacation days do I get?",
			reply:     "You get 30 days of vacation.",
			wantText:  rag.NotFoundText("en", owner),
			abstained: true,
		},
		{
			name:      "model abstains in the question's language",
			question:  "¿Cuántos días de vacaciones tengo?",
			reply:     rag.NotFoundText("es", owner),
			wantText:  rag.NotFoundText("es", owner),
			abstained: true,
			reason:    "model_abstained",
		},
		{
			name:      "a cited I don't know is an abstention",
			question:  "How many vacation days do I get?",
			reply:     "I don't know [1].",
			wantText:  rag.NotFoundText("en", owner),
			abstained: true,
			reason:    "model_abstained",
		},
		{
			name:      "the sources do not say, in the model's words",
			question:  "¿Cuántos días de vacaciones tengo?",
			reply:     "Las fuentes no mencionan cuántos días corresponden [2].",
			wantText:  rag.NotFoundText("es", owner),
			abstained: true,
			reason:    "model_abstained",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, replyWith(tt.reply))
			var streamed strings.Builder
			ans, err := newOnlinePipeline(t, srv).Answer(context.Background(),
				rag.Question{Text: tt.question, Scope: rag.MustScope("everyone")}, func(d string) { streamed.WriteString(d) })
			if err != nil {
				t.Fatalf("Answer: %v", err)
			}
			if ans.Text != tt.wantText || ans.Abstained != tt.abstained {
				t.Errorf("answer = %q (abstained %v), want %q (abstained %v)", ans.Text, ans.Abstained, tt.wantText, tt.abstained)
			}
			if want := cmp.Or(tt.reason, "no_valid_citation"); tt.abstained && ans.AbstainReason != want {
				t.Errorf("abstain reason = %q, want %s", ans.AbstainReason, want)
			}
			var ids []int64
			for i, s := range ans.Sources {
				ids = append(ids, s.ChunkID)
				if s.N != i+1 {
					t.Errorf("source %d numbered %d", i, s.N)
				}
			}
			if len(ids) != len(tt.wantSources) || (len(ids) > 0 && !equalIDs(ids, tt.wantSources)) {
				t.Errorf("cited chunks = %v, want %v", ids, tt.wantSources)
			}
			if streamed.String() != tt.reply {
				t.Errorf("streamed %q, want the model's text as generated", streamed.String())
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !reqs[0].Stream {
				t.Fatalf("model requests = %d, want one streamed", len(reqs))
			}
			if lang := rag.AnswerLang(tt.question); reqs[0].Messages[0].Content != SystemPrompt(lang) {
				t.Errorf("system prompt is not the %s one", lang)
			}
			if ans.Usage.PromptTokens == 0 || ans.Usage.CompletionTokens == 0 || ans.Usage.Model != "llama3.1:8b" {
				t.Errorf("usage = %+v, want the model's token counts in the answer", ans.Usage)
			}
		})
	}
}

func equalIDs(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestPipelineReturnsModelErrors(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith(cited))
	srv.FailNext(1, http.StatusInternalServerError, "")
	ans, err := newOnlinePipeline(t, srv).Answer(context.Background(),
		rag.Question{Text: "How many vacation days do I get?", Scope: rag.MustScope("everyone")}, nil)
	var apiErr *goopenai.APIError
	if err == nil || ans != nil || !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusInternalServerError {
		t.Fatalf("Answer = %+v, %v; want an error wrapping the 500 for the chat adapter to explain", ans, err)
	}
	if !strings.Contains(err.Error(), "compose answer") {
		t.Errorf("error %q does not say which stage failed", err)
	}
}
