package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// runAnswerEval indexes DIR/corpus into a scratch namespace, asks every question of
// DIR/questions.jsonl through the answering pipeline the chat adapters use (the configured chat
// model, or the offline composer), and prints the answer-level figures overall and per language.
func runAnswerEval(ctx context.Context, e *env, dir string, asJSON, misses bool, minEvidence float64) error {
	set, a, closeApp, err := openEvalSet(ctx, e, eval.LoadAnswerSet, dir)
	if err != nil {
		return err
	}
	defer closeApp()
	rep, err := evalindex.Folder(ctx, a.store, a.embedder, e.logger, "eval:"+set.Name, set.CorpusDir, []string{"eval"})
	if err != nil {
		return err
	}
	off := false
	a.cfg.Cache.Enabled = &off // every question is answered afresh, and timed as such
	p, err := a.pipeline(ctx, e, func(o *rag.PipelineOptions) { o.MinEvidence = minEvidence })
	if err != nil {
		return err
	}
	res, err := eval.RunAnswers(ctx, set, p, rag.MustScope("eval"))
	if err != nil {
		return err
	}
	if asJSON {
		if misses {
			kept := res.Outcomes[:0]
			for _, o := range res.Outcomes {
				if o.Miss() {
					kept = append(kept, o)
				}
			}
			res.Outcomes = kept
		}
		return json.NewEncoder(e.stdout).Encode(res)
	}
	fmt.Fprintf(e.stdout, "%s: %d documents (%d chunks), %d questions\n", set.Name, rep.Listed, rep.Chunks, len(set.Questions))
	fmt.Fprintf(e.stdout, "%-8s %4s %10s %10s %8s %11s %14s %9s %7s %7s\n", "", "n", "first-gold", "cited-gold", "has-fact", "direct-fact", "false-refusals", "declined", "p50 ms", "p95 ms")
	row := func(name string, m eval.AnswerMetrics) {
		declined := "-"
		if m.Unanswerable > 0 {
			declined = fmt.Sprintf("%.2f", m.Declined)
		}
		fmt.Fprintf(e.stdout, "%-8s %4d %10.2f %10.2f %8.2f %11.2f %14.2f %9s %7.1f %7.1f\n", name, m.Questions, m.FirstGold, m.AnyGold,
			m.HasFact, m.DirectFact, m.FalseRefusals, declined, m.P50ms, m.P95ms)
	}
	row("overall", res.Overall)
	for _, l := range res.Langs() {
		row(l, res.ByLang[l])
	}
	fmt.Fprintln(e.stdout, "first-gold, cited-gold, has-fact, direct-fact and false-refusals are shares of the answerable questions; declined, of the unanswerable ones.")
	fmt.Fprintln(e.stdout, "has-fact: the gold fact, as whole words, anywhere in the answer; direct-fact: in its first paragraph, the direct answer.")
	if misses {
		printMisses(e, res.Outcomes)
	}
	return nil
}

func printMisses(e *env, outcomes []eval.AnswerOutcome) {
	for _, o := range outcomes {
		if !o.Miss() {
			continue
		}
		fmt.Fprintf(e.stdout, "\n--- %s [%s %s] %s\n", o.ID, o.Lang, o.Kind, o.Question)
		switch {
		case !o.Answerable:
			fmt.Fprintln(e.stdout, "unanswerable, but answered")
		case o.Abstained:
			fmt.Fprintf(e.stdout, "refused (%s); want %q from %s\n", o.AbstainWhy, o.Gold, strings.Join(o.GoldFiles, ", "))
		default:
			fmt.Fprintf(e.stdout, "want %q from %s (fact %v, first source gold %v)\n", o.Gold, strings.Join(o.GoldFiles, ", "), o.HasFact, o.FirstGold)
		}
		if o.Standalone != "" && o.Standalone != o.Question {
			fmt.Fprintf(e.stdout, "searched: %s\n", o.Standalone)
		}
		fmt.Fprintf(e.stdout, "cited: %s\n", strings.Join(o.Cited, ", "))
		fmt.Fprintln(e.stdout, indent(o.Answer, "  "))
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}
