package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/rag/rewrite"
)

// The two evaluations of follow-up rewriting: on a CANARD file (`cita eval --rewrites`, every
// rewriter against the human rewrite) and on the project's own conversations over a corpus
// (`cita eval --followups`, the rewriter cita answers with). Both load their set and open a
// scratch namespace with openEvalSet, and take their rewriters from evalRewriters.

// namedRewriter is a rewriter and the name the reports give it.
type namedRewriter struct {
	name string
	r    rag.Rewriter
}

// evalRewriters returns the rewriters to compare, the offline one and the chat model's when one
// is configured, and the one cita answers with (the model's, else the offline one: rewriterFor).
func evalRewriters(a *app, e *env) (all []namedRewriter, wired rag.Rewriter, err error) {
	chat, err := a.chatModel(e)
	if err != nil {
		return nil, nil, err
	}
	all = []namedRewriter{{"offline", rewrite.Offline{}}}
	wired = rewriterFor(chat, e)
	if chat != nil {
		all = append(all, namedRewriter{"model", wired})
	}
	return all, wired, nil
}

// runRewriteEval reports, on a CANARD file, how much of the human rewrites' added content each
// rewriter recovers, and the retrieval gain: nDCG@10 of finding the follow-up's conversation
// with the question as asked, with each rewriter's output, and with the human rewrite.
func runRewriteEval(ctx context.Context, e *env, path string, asJSON bool) error {
	samples, a, closeApp, err := openEvalSet(ctx, e, rewrite.LoadCanard, path)
	if err != nil {
		return err
	}
	defer closeApp()
	rewriters, _, err := evalRewriters(a, e)
	if err != nil {
		return err
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
	order := []string{"as asked"}
	for _, rw := range rewriters {
		order = append(order, rw.name)
	}
	for _, name := range append(order, "human rewrite") {
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

// runFollowUpEval indexes the corpus/ folder beside path into a scratch namespace and reports,
// for the rewriter cita is wired with (the chat model's, else the offline one), nDCG@10 of the
// gold files searching each follow-up as asked, as rewritten and as a person rewrote it.
func runFollowUpEval(ctx context.Context, e *env, path string, asJSON bool) error {
	set, a, closeApp, err := openEvalSet(ctx, e, eval.LoadFollowUps, path)
	if err != nil {
		return err
	}
	defer closeApp()
	corpus := filepath.Join(filepath.Dir(path), "corpus")
	if _, err := evalindex.Folder(ctx, a.store, a.embedder, e.logger, "eval:followups", corpus, []string{"eval"}); err != nil {
		return err
	}
	_, wired, err := evalRewriters(a, e)
	if err != nil {
		return err
	}
	rep, err := eval.RunFollowUps(ctx, set, a.search, wired, rag.MustScope("eval"))
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(rep)
	}
	fmt.Fprintf(e.stdout, "%s: %d follow-ups over %s; nDCG@10 of the gold files (hybrid)\n", path, len(set), corpus)
	fmt.Fprintf(e.stdout, "%-9s %3s %7s %10s %7s %11s\n", "", "n", "asked", "rewritten", "human", "gap closed")
	row := func(name string, s eval.FollowUpScores) {
		fmt.Fprintf(e.stdout, "%-9s %3d %7.3f %10.3f %7.3f %11.2f\n", name, s.N, s.Asked, s.Rewritten, s.Human, s.Closed)
	}
	row("overall", rep.Overall)
	shapes := make([]string, 0, len(rep.ByShape))
	for k := range rep.ByShape {
		shapes = append(shapes, k)
	}
	sort.Strings(shapes)
	for _, k := range shapes {
		row(k, rep.ByShape[k])
	}
	return nil
}
