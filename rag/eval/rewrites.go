package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/rewrite"
)

// ConversationDataset turns rewrite samples into a retrieval set that measures what rewriting
// gains: one document per conversation (its title, section and every answer the history shows),
// one query per follow-up, relevant = its own conversation. A follow-up like "did he donate any
// of his money?" only finds its conversation if the rewrite carried the topic forward. The query
// text is chosen by pick (the question as asked, a rewriter's output, or the human rewrite).
func ConversationDataset(samples []rewrite.Sample, pick func(i int, s rewrite.Sample) string) *Dataset {
	ds := &Dataset{Name: "canard-conversations", Qrels: map[string]map[string]int{}}
	longest := map[string][]rag.Turn{}
	keyOf := func(s rewrite.Sample) string {
		if len(s.History) < 2 {
			return s.Question
		}
		return s.History[0].Text + " / " + s.History[1].Text
	}
	var order []string
	for _, s := range samples {
		k := keyOf(s)
		if _, ok := longest[k]; !ok {
			order = append(order, k)
		}
		if len(s.History) > len(longest[k]) {
			longest[k] = s.History
		}
	}
	ids := map[string]string{}
	for i, k := range order {
		h := longest[k]
		id := fmt.Sprintf("c%04d", i)
		ids[k] = id
		var body []string
		for j, t := range h {
			if j >= 2 && t.Role == "assistant" && !strings.HasPrefix(t.Text, "I don't know") {
				body = append(body, t.Text)
			}
		}
		title := k
		if len(h) >= 2 {
			title = h[0].Text + " - " + h[1].Text
		}
		// The title opens the text too, so a conversation whose history holds no answer yet is
		// still a document.
		ds.Corpus = append(ds.Corpus, CorpusDoc{ID: id, Title: title, Text: title + "\n\n" + strings.Join(body, "\n\n")})
	}
	for i, s := range samples {
		qid := fmt.Sprintf("q%04d", i)
		ds.Queries = append(ds.Queries, Query{ID: qid, Text: pick(i, s)})
		ds.Qrels[qid] = map[string]int{ids[keyOf(s)]: 1}
	}
	return ds
}

// RewriteAll runs a rewriter over every sample (errors keep the question as asked).
func RewriteAll(ctx context.Context, r rag.Rewriter, samples []rewrite.Sample) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		q, err := r.Rewrite(ctx, s.Question, s.History)
		if err != nil {
			q = s.Question
		}
		out[i] = q
	}
	return out
}
