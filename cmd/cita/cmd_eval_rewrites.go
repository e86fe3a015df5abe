package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/rag/rewrite"
)

// runRewriteEval reports, on a CANARD file, how much of the human rewrites' added content each
// rewriter recovers, and the retrieval gain: nDCG@10 of finding the follow-up's conversation
// with the question as asked, with each rewriter's output, and with the human rewrite.
func runRewriteEval(ctx context.Context, e *env, path string, asJSON bool) error {
	samples, a, closeApp, err := openEvalSet(ctx, e, rewrite.LoadCanard, path)
	if err != nil {
		return err
	}
	defer closeApp()
	rewriters := []struct {
		name string
		r    rag.Rewriter
	}{{"offline", rewrite.Offline{}}}
	if chat, err := a.chatModel(e); err != nil {
		return err
	} else if chat != nil {
		rewriters = append(rewriters, struct {
			name string
			r    rag.Rewriter
		}{"model", rewrite.NewLLM(chat, e.logger)})
	}
	variants := map[string][]string{}
	asked := make([]string, len(samples))
	human := make([]string, len(samples))
	for i, s := range samples {
		asked[i], human[i] = s.Question, s.Rewrite
	}
	variants["as asked"], variants["human rewrite"] = asked, human
	type row struct {
		Rewriter  string  `json:"rewriter"`
		Recovered float64 `json:"recovered_mean"`
		Micro     float64 `json:"recovered_micro"`
		Precision float64 `json:"precision"`
	}
	var rows []row
	for _, rw := range rewriters {
		rec := rewrite.CanardRecovery(ctx, rw.r, samples)
		rows = append(rows, row{rw.name, rec.Mean, rec.Micro, rec.Precision})
		variants[rw.name] = eval.RewriteAll(ctx, rw.r, samples)
	}
	base := eval.ConversationDataset(samples, func(i int, s rewrite.Sample) string { return s.Question })
	docs, _ := base.Documents()
	rep, err := evalindex.Documents(ctx, a.store, a.embedder, e.logger, "eval:canard", docs, []string{"eval"})
	if err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(e.stdout, "%s: %d follow-ups in %d conversations (%d chunks)\n", path, len(samples), len(base.Corpus), rep.Chunks)
		fmt.Fprintf(e.stdout, "content the human rewrite added that each rewriter recovers:\n")
		for _, r := range rows {
			fmt.Fprintf(e.stdout, "  %-8s mean %.3f  micro %.3f  precision of added terms %.3f\n", r.Rewriter, r.Recovered, r.Micro, r.Precision)
		}
		fmt.Fprintf(e.stdout, "retrieval of the follow-up's conversation (hybrid):\n")
	}
	for _, name := range append([]string{"as asked"}, append(names(rewriters), "human rewrite")...) {
		qs := variants[name]
		ds := eval.ConversationDataset(samples, func(i int, s rewrite.Sample) string { return qs[i] })
		m, err := eval.Run(ctx, ds, a.search, rag.MustScope("eval"), "hybrid", nil)
		if err != nil {
			return err
		}
		if asJSON {
			if err := json.NewEncoder(e.stdout).Encode(map[string]any{"queries": name, "ndcg@10": m.NDCG10, "recall@10": m.Recall10, "mrr@10": m.MRR10}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "  %-14s nDCG@10 %.4f  Recall@10 %.4f  MRR@10 %.4f\n", name, m.NDCG10, m.Recall10, m.MRR10)
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(rows)
	}
	return nil
}

func names[T any](xs []struct {
	name string
	r    T
}) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.name
	}
	return out
}
