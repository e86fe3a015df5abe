package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/citahq/cita/rag"
)

func init() {
	register("calibrate", &command{
		summary: "measure the relevance guard on your own documents and suggest answers.min_evidence and answers.confident_evidence",
		usage: `Usage: cita calibrate [--groups g1,g2] [--passages N] [--budget F] [--seed N] [--json]

Builds probe questions from the indexed documents the groups may read and answers each with the
guard off, to see where answers.min_evidence should sit for this organisation's documents:

  - an answerable probe asks, in keywords, what one passage states (its heading's words and the
    rarest words of one sentence); it should be answered, from that passage's document;
  - a near-miss probe is the same question with its rarest word swapped for a word of another
    document: it asks for something the documents do not state, and should be declined.

For each threshold it prints the share of answerable probes that would be refused (false
refusals; probes whose document retrieval did not find are left out and counted apart) and the
share of near misses that would be declined, and suggests the highest threshold whose false
refusals stay within --budget (default 0.10). As the confident threshold (between the two,
replies give the closest passages as uncertain) it prints the shares of answerable probes and
near misses that would be answers, and suggests the lowest at or above the guard's that
answers at most --confident-budget (default 0.25) of the near misses. Probes are keywords, not people's questions:
real questions paraphrase more, so read the suggestion as an upper bound, and check it with
questions your people ask (cita eval --answers) before setting answers.min_evidence. With a
chat model the guard is only a pre-filter and the model judges; calibrate measures the offline
guard.

Flags:
`,
		run: runCalibrate,
	})
}

// calibrationReport is what `cita calibrate --json` prints.
type calibrationReport struct {
	Passages     int                  `json:"passages"`
	Answerable   int                  `json:"answerable_probes"`
	Found        int                  `json:"answerable_found"`
	NearMisses   int                  `json:"near_miss_probes"`
	Budget       float64              `json:"budget"`
	InEffect     float64              `json:"min_evidence_in_effect"`
	Suggested    float64              `json:"suggested_min_evidence"`
	Rows         []rag.CalibrationRow `json:"rows"`
	SuggestedRow *rag.CalibrationRow  `json:"suggested_row,omitempty"`
	// The confident threshold (answers.confident_evidence): the lowest at or above the guard's
	// whose near misses answered as answers stay within ConfidentBudget.
	ConfidentBudget    float64 `json:"confident_budget"`
	ConfidentInEffect  float64 `json:"confident_evidence_in_effect"`
	SuggestedConfident float64 `json:"suggested_confident_evidence"`
}

func runCalibrate(ctx context.Context, e *env, args []string) error {
	fs := newFlags("calibrate", e, commands["calibrate"].usage)
	groups := fs.String("groups", "everyone", "comma-separated access groups whose documents are probed")
	passages := fs.Int("passages", 200, "passages to build probes from")
	budget := fs.Float64("budget", 0.10, "false-refusal budget: the share of answerable probes the guard may refuse")
	confidentBudget := fs.Float64("confident-budget", rag.DefaultConfidentBudget, "the share of near misses the confident threshold may answer as answers")
	seed := fs.Uint64("seed", 1, "which passages are drawn")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *passages < 10 || *budget < 0 || *budget >= 1 {
		return fmt.Errorf("--passages must be at least 10 and --budget between 0 and 1")
	}
	a, scope, err := openScoped(ctx, e, *groups)
	if err != nil {
		return err
	}
	defer a.Close()
	hits, err := a.store.SampleChunks(ctx, scope, *passages, int64(*seed))
	if err != nil {
		return err
	}
	probes := rag.BuildProbes(hits, *seed)
	if len(probes) == 0 {
		return fmt.Errorf("no probe could be built: the groups %v read no passage with a sentence of five words or more (index documents first)", scope.Groups())
	}
	off := false
	a.cfg.Cache.Enabled = &off
	inEffect := a.cfg.Answers.MinEvidence
	if inEffect == 0 {
		inEffect = rag.DefaultMinEvidence
	}
	a.cfg.Chat.BaseURL = "" // the offline guard is what is calibrated
	p, err := a.pipeline(ctx, e, func(o *rag.PipelineOptions) { o.MinEvidence = 1e-9 })
	if err != nil {
		return err
	}
	rep := calibrationReport{Passages: len(hits), Budget: *budget, InEffect: inEffect}
	var results []rag.ProbeResult
	for _, pr := range probes {
		ans, err := p.Answer(ctx, rag.Question{Text: pr.Question, Scope: scope}, nil)
		if err != nil {
			return fmt.Errorf("probe %q: %w", pr.Question, err)
		}
		r := rag.NewProbeResult(pr, ans)
		if pr.NearMiss {
			rep.NearMisses++
		} else {
			rep.Answerable++
			if r.Found {
				rep.Found++
			}
		}
		results = append(results, r)
	}
	rep.Rows, rep.Suggested = rag.Calibrate(results, *budget)
	rep.ConfidentBudget = *confidentBudget
	rep.SuggestedConfident = rag.SuggestConfident(rep.Rows, max(rep.Suggested, inEffect), *confidentBudget)
	rep.ConfidentInEffect = a.cfg.Answers.ConfidentEvidence
	if rep.ConfidentInEffect == 0 {
		rep.ConfidentInEffect = rag.DefaultConfidentEvidence
	}
	for i := range rep.Rows {
		if rep.Rows[i].Threshold == rep.Suggested {
			rep.SuggestedRow = &rep.Rows[i]
		}
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(rep)
	}
	printCalibration(e, rep)
	return nil
}

func printCalibration(e *env, rep calibrationReport) {
	w := e.stdout
	fmt.Fprintf(w, "%d passages: %d answerable probes (%d answered from their own document; the rest are retrieval misses, left out), %d near misses\n\n",
		rep.Passages, rep.Answerable, rep.Found, rep.NearMisses)
	fmt.Fprintf(w, "%9s %15s %21s %21s %21s\n", "threshold", "false-refusals", "near-misses-declined", "answerable-confident", "near-misses-confident")
	for _, r := range rep.Rows {
		if int(r.Threshold*100+0.5)%5 != 0 && r.Threshold != rep.Suggested && r.Threshold != rep.InEffect {
			continue
		}
		mark := ""
		switch {
		case r.Threshold == rep.Suggested && r.Threshold == rep.InEffect:
			mark = "  <- suggested, in effect"
		case r.Threshold == rep.Suggested:
			mark = "  <- suggested"
		case r.Threshold == rep.InEffect:
			mark = "  <- in effect"
		}
		if r.Threshold == rep.SuggestedConfident {
			mark += "  <- suggested confident"
		}
		fmt.Fprintf(w, "%9.2f %15.2f %21.2f %21.2f %21.2f%s\n", r.Threshold, r.FalseRefusals, r.Declined, r.AnswerableConfident, r.NearMissesConfident, mark)
	}
	if rep.SuggestedConfident > 0 {
		fmt.Fprintf(w, "\nlowest answers.confident_evidence answering at most %.0f%% of near misses as answers (the rest hedged as \"the closest I found\"): %.2f; in effect now: %.2f\n",
			100*rep.ConfidentBudget, rep.SuggestedConfident, rep.ConfidentInEffect)
	} else {
		fmt.Fprintf(w, "\nno confident threshold keeps near misses answered as answers within %.0f%%\n", 100*rep.ConfidentBudget)
	}
	if rep.SuggestedRow == nil {
		fmt.Fprintf(w, "\nno threshold keeps false refusals within %.2f on these probes\n", rep.Budget)
		return
	}
	fmt.Fprintf(w, "\nhighest answers.min_evidence within a false-refusal budget of %.2f on these probes: %.2f (declines %.0f%% of near misses); in effect now: %.2f\n",
		rep.Budget, rep.Suggested, 100*rep.SuggestedRow.Declined, rep.InEffect)
	fmt.Fprintln(w, "This is an upper bound: probes use the documents' own words, and people paraphrase, which lowers")
	fmt.Fprintln(w, "the support of answerable questions (on real handbooks, answerable questions score 0.2-0.5 as often")
	fmt.Fprintln(w, "as not). Raise the threshold only as far as `cita eval --answers` on questions your people ask allows.")
}
