package eval

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Modes maps a mode name to the arms it searches.
var Modes = map[string][]rag.Arm{
	"fts":    {rag.ArmFTS},
	"vector": {rag.ArmVector},
	"hybrid": nil,
}

// Document is one corpus entry as a Markdown file for the caller to index: its id (the path
// search hits report), a file name and the text, titled with the entry's title.
type Document struct {
	ID   string
	Name string
	Text string
}

// Documents returns the corpus as Markdown documents, leaving out entries with no text (some
// BEIR sets have them); skipped counts those.
func (ds *Dataset) Documents() (docs []Document, skipped int) {
	for _, d := range ds.Corpus {
		if strings.TrimSpace(d.Text) == "" {
			skipped++
			continue
		}
		body := d.Text
		if d.Title != "" {
			body = "# " + d.Title + "\n\n" + d.Text
		}
		docs = append(docs, Document{ID: d.ID, Name: d.ID + ".md", Text: body})
	}
	return docs, skipped
}

// Run searches every query in the given mode and scores the ranking of documents. rewriter may be
// nil; when set, queries with a history are rewritten first.
func Run(ctx context.Context, ds *Dataset, s rag.Searcher, scope rag.Scope, mode string, rewriter rag.Rewriter) (*Metrics, error) {
	arms, ok := Modes[mode]
	if !ok {
		return nil, fmt.Errorf("mode %q: use fts, vector or hybrid", mode)
	}
	m := &Metrics{Mode: mode, Queries: len(ds.Queries)}
	lat := make([]time.Duration, 0, len(ds.Queries))
	for _, q := range ds.Queries {
		text := q.Text
		if rewriter != nil && len(q.History) > 0 {
			turns := make([]rag.Turn, len(q.History))
			for i, h := range q.History {
				turns[i] = rag.Turn{Role: "user", Text: h}
			}
			rw, err := rewriter.Rewrite(ctx, q.Text, turns)
			if err != nil {
				return nil, fmt.Errorf("rewrite %s: %w", q.ID, err)
			}
			text = rw
		}
		start := time.Now()
		res, err := s.Search(ctx, rag.SearchRequest{Query: text, Scope: scope, Limit: 100, Arms: arms})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		lat = append(lat, time.Since(start))
		var ranked []string
		seen := map[string]bool{}
		for _, h := range res.Hits {
			if !seen[h.Path] {
				seen[h.Path] = true
				ranked = append(ranked, h.Path)
			}
		}
		n, r10, mrr, r100 := scoreQuery(ranked, ds.Qrels[q.ID])
		m.NDCG10 += n
		m.Recall10 += r10
		m.MRR10 += mrr
		m.Recall100 += r100
	}
	if k := float64(len(ds.Queries)); k > 0 {
		m.NDCG10 /= k
		m.Recall10 /= k
		m.MRR10 /= k
		m.Recall100 /= k
	}
	m.P50ms, m.P95ms = percentile(lat, 0.5), percentile(lat, 0.95)
	return m, nil
}
