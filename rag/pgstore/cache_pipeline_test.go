package pgstore_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// TestPipelineCacheEndToEnd runs the offline pipeline (hybrid search over a real store, the
// extractive composer) with the PostgreSQL cache: a repeated question is served from the cache
// with the same answer, another scope is answered afresh, and re-indexing a cited document
// invalidates the entry.
func TestPipelineCacheEndToEnd(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{})
	ctx := context.Background()
	b.index(t, "vacations.md", []string{"hr"}, "Full-time employees get 23 working days of vacation per year. Unused vacation days expire on 31 March.")
	b.index(t, "deploys.md", []string{"eng"}, "Deploys to production need two approvals. Staging deploys need one approval.")
	p := rag.NewPipeline(b.hybrid(), rag.Extractive{}, nil, rag.PipelineOptions{Cache: b.cache, Logger: slog.New(slog.DiscardHandler)})
	hr := rag.MustScope("hr")

	ask := func(question string, scope rag.Scope) (*rag.Answer, []string) {
		t.Helper()
		var deltas []string
		ans, err := p.Answer(ctx, rag.Question{Text: question, Scope: scope}, func(d string) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("answer %q: %v", question, err)
		}
		return ans, deltas
	}

	first, _ := ask("How many vacation days do full-time employees get?", hr)
	if first.Cached || first.Abstained || len(first.Sources) == 0 {
		t.Fatalf("first answer: cached=%v abstained=%v (%s) sources=%d; want a fresh cited answer",
			first.Cached, first.Abstained, first.AbstainReason, len(first.Sources))
	}

	second, deltas := ask("how many vacation days do full-time employees get", hr)
	if !second.Cached {
		t.Fatal("the repeated question was not served from the cache")
	}
	sameAnswer(t, second, first)
	if len(deltas) != 1 || deltas[0] != first.Text {
		t.Errorf("a hit streamed %q, want the text once", deltas)
	}
	if second.Search != nil || second.Timings["search"] != 0 {
		t.Errorf("a hit searched again: %v", second.Timings)
	}
	if second.Question != "how many vacation days do full-time employees get" {
		t.Errorf("hit Question = %q, want this asking's text", second.Question)
	}

	for _, scope := range []rag.Scope{rag.MustScope("hr", "eng"), rag.MustScope("eng")} {
		other, _ := ask("How many vacation days do full-time employees get?", scope)
		if other.Cached {
			t.Errorf("scope %s was served the entry of scope hr", scope)
		}
	}
	if eng, _ := ask("How many vacation days do full-time employees get?", rag.MustScope("eng")); !eng.Cached || !eng.Abstained {
		t.Errorf("scope eng's own abstention: cached=%v abstained=%v, want it cached", eng.Cached, eng.Abstained)
	}

	b.index(t, "vacations.md", []string{"hr"}, "Full-time employees get 25 working days of vacation per year.")
	after, _ := ask("How many vacation days do full-time employees get?", hr)
	if after.Cached {
		t.Fatal("served a cached answer whose cited document was re-indexed")
	}
	if after.Text == first.Text {
		t.Errorf("the fresh answer after re-indexing still reads %q", after.Text)
	}
}
