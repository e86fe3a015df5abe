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
func runAnswerEval(ctx context.Context, e *env, dir string, asJSON, misses bool, minEvidence, confident float64) error {
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
	p, err := a.pipeline(ctx, e, func(o *rag.PipelineOptions) {
		if minEvidence > 0 {
			o.MinEvidence = minEvidence
		}
		if confident > 0 {
			o.ConfidentEvidence = confident
		}
	})
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
	printAnswerTable(e, res)
	if misses {
		printMisses(e, res.Outcomes)
	}
	return nil
}

// printAnswerTable prints the figures overall, per question language and per direction.
func printAnswerTable(e *env, res *eval.AnswerReport) {
	fmt.Fprintf(e.stdout, "%-8s %4s %6s %6s %6s %6s %6s %6s %6s %6s | %4s %6s %6s %6s | %7s %7s\n", "", "n", "first", "fact", "conf", "direct",
		"hedged", "refus", "f1fact", "cited", "out", "declin", "hedged", "conf", "p50 ms", "p95 ms")
	row := func(name string, m eval.AnswerMetrics) {
		ans := fmt.Sprintf("%6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f", m.FirstGold, m.HasFact, m.ConfidentFact, m.DirectFact,
			m.Hedged, m.FalseRefusals, m.FirstGoldFact, m.AnyGold)
		if m.Answerable == 0 {
			ans = fmt.Sprintf("%6s %6s %6s %6s %6s %6s %6s %6s", "-", "-", "-", "-", "-", "-", "-", "-")
		}
		out := fmt.Sprintf("%6s %6s %6s", "-", "-", "-")
		if m.Unanswerable > 0 {
			out = fmt.Sprintf("%6.2f %6.2f %6.2f", m.Declined, m.HedgedOut, m.ConfidentOut)
		}
		fmt.Fprintf(e.stdout, "%-8s %4d %s | %4d %s | %7.1f %7.1f\n", name, m.Answerable, ans, m.Unanswerable, out, m.P50ms, m.P95ms)
	}
	row("overall", res.Overall)
	for _, l := range res.Langs() {
		row(l, res.ByLang[l])
	}
	for _, d := range res.Directions() {
		row(d, res.ByDirection[d])
	}
	fmt.Fprintln(e.stdout, "Left of |, shares of the answerable questions (n): first = first source a gold page; fact = the gold fact, as whole words,")
	fmt.Fprintln(e.stdout, "anywhere in the reply; conf = the fact in a reply given as an answer (not hedged, not refused); direct = the fact in its")
	fmt.Fprintln(e.stdout, "first paragraph; hedged = given as \"the closest I found\"; refus = \"I couldn't find this\"; f1fact = of the replies whose")
	fmt.Fprintln(e.stdout, "first source is a gold page, the share holding the fact; cited = a gold page cited. Right of |, shares of the")
	fmt.Fprintln(e.stdout, "unanswerable questions (out): declined, hedged, answered confidently. Rows: overall, per question language, per")
	fmt.Fprintln(e.stdout, "direction (question language > gold page language; out: unanswerable by question language).")
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
		case o.Hedged:
			fmt.Fprintf(e.stdout, "hedged; want %q from %s (fact %v, first source gold %v)\n", o.Gold, strings.Join(o.GoldFiles, ", "), o.HasFact, o.FirstGold)
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
