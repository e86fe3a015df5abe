package bench

import (
	"context"

	"github.com/citahq/cita/rag"
)

// RunQuestions times questions asked of an index that is already loaded (a real corpus), every
// one under the scope of group: hybrid, each arm alone and plain pgvector. Without an exact
// reference for a real corpus it reports no ANN recall. It returns the first error of the
// store, the embedder or search.
func RunQuestions(ctx context.Context, store Store, emb rag.Embedder, search rag.Searcher, questions []string, group string) (*Latencies, error) {
	qs := make([]Query, len(questions))
	for i, q := range questions {
		qs[i] = Query{Text: q, Group: group}
	}
	return measure(ctx, store, emb, search, qs, false)
}
