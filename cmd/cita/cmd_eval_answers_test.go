package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag/eval"
)

// TestEvalAnswersOnTheProjectHandbook runs `cita eval --answers` on testdata/handbook, the
// project's own handbook set: every question is answered through the pipeline, the figures
// are computed per language, --misses keeps only the misses, and the answers stay above a floor
// (with or without the offline translator) so that a regression of the composer or the guard
// fails here.
func TestEvalAnswersOnTheProjectHandbook(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	evalJSON := func(args ...string) eval.AnswerReport {
		t.Helper()
		var stdout, stderr bytes.Buffer
		argv := append([]string{"--config", cfg, "eval", "--answers", "../../testdata/handbook", "--json"}, args...)
		if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
			t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
		}
		var rep eval.AnswerReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, stdout.String())
		}
		return rep
	}
	rep := evalJSON()
	if rep.Overall.Questions != 72 || rep.Overall.Answerable != 59 || rep.Overall.Unanswerable != 13 || len(rep.Outcomes) != 72 {
		t.Fatalf("overall %+v with %d outcomes, want 72 questions (59 answerable, 13 not)", rep.Overall, len(rep.Outcomes))
	}
	for _, lang := range []string{"en", "es"} {
		m, ok := rep.ByLang[lang]
		if !ok || m.Questions == 0 {
			t.Fatalf("no figures for %s: %+v", lang, rep.ByLang)
		}
		t.Logf("%s: first gold %.2f, cited gold %.2f, has fact %.2f, false refusals %.2f, declined %.2f, p50 %.0f ms",
			lang, m.FirstGold, m.AnyGold, m.HasFact, m.FalseRefusals, m.Declined, m.P50ms)
	}
	if o := rep.Overall; o.FirstGold < 0.6 || o.HasFact < 0.55 || o.FalseRefusals > 0.15 {
		t.Errorf("overall %+v: below the floor (first gold 0.60, has fact 0.55, false refusals at most 0.15)", o)
	}
	misses := evalJSON("--misses")
	want := map[string]eval.AnswerOutcome{}
	for _, o := range rep.Outcomes {
		if o.Miss() {
			want[o.ID] = o
		}
	}
	got := map[string]eval.AnswerOutcome{}
	for _, o := range misses.Outcomes {
		got[o.ID] = o
	}
	if len(want) == 0 {
		t.Errorf("no misses in the full run: the check of --misses proves nothing")
	}
	for id, o := range want {
		if _, ok := got[id]; !ok {
			t.Errorf("--misses left out %s, a miss in the full run: %+v", id, o)
		}
	}
	for id, o := range got {
		if w, ok := want[id]; !ok {
			t.Errorf("--misses listed %s, not a miss in the full run: %+v", id, o)
		} else if w.Answer != o.Answer {
			t.Errorf("%s answered differently in two runs:\n%q\n%q", id, w.Answer, o.Answer)
		}
	}
	for _, o := range misses.Outcomes {
		if !o.Miss() {
			t.Errorf("--misses listed %s, which is not a miss", o.ID)
		}
	}
}

// TestEvalAnswersOnTheSharedHandbook guards the answer-level figures of docs/answer-quality.md on
// ../shared/eval/handbook-gitlab (real handbook pages; Spanish questions about English pages),
// a little below them so that noise does not fail it but a regression does.
func TestEvalAnswersOnTheSharedHandbook(t *testing.T) {
	dir := os.Getenv("CITA_SHARED_DIR")
	if dir == "" {
		t.Skip("CITA_SHARED_DIR is unset: this test needs ../shared/eval/handbook-gitlab (CI sets it)")
	}
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr bytes.Buffer
	argv := []string{"--config", cfg, "eval", "--answers", filepath.Join(dir, "eval", "handbook-gitlab"), "--json"}
	if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
		t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
	}
	var rep eval.AnswerReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	floors := map[string]eval.AnswerMetrics{
		"en": {FirstGold: 0.85, HasFact: 0.77},
		"es": {FirstGold: 0.85, HasFact: 0.70},
	}
	for lang, floor := range floors {
		m := rep.ByLang[lang]
		t.Logf("%s: first gold %.2f, has fact %.2f, false refusals %.2f, declined %.2f", lang, m.FirstGold, m.HasFact, m.FalseRefusals, m.Declined)
		if m.FirstGold < floor.FirstGold || m.HasFact < floor.HasFact {
			t.Errorf("%s: first gold %.2f, has fact %.2f; want at least %.2f and %.2f", lang, m.FirstGold, m.HasFact, floor.FirstGold, floor.HasFact)
		}
	}
	if fr := rep.Overall.FalseRefusals; fr > 0.10 {
		t.Errorf("false refusals %.2f, want at most 0.10", fr)
	}
	if fr := rep.ByLang["es"].FalseRefusals; fr > 0.15 {
		t.Errorf("Spanish false refusals %.2f, want at most 0.15", fr)
	}
	// A floor on the unanswerable questions not answered as if the documents answered them
	// (declined, or hedged as "the closest I found"): answering everything would pass every
	// figure above.
	if c := rep.Overall.ConfidentOut; c > 0.45 {
		t.Errorf("answered %.2f of the unanswerable questions confidently, want at most 0.45", c)
	}
}

// TestEvalAnswersOnTheHeldOutSet reports testdata/heldout-es, the set written before any tuning
// of issue 23 and never used for a choice, and puts a floor under it that only a regression
// crosses: the figures are the project's held-out ones (docs/answer-quality.md), not targets tuned here.
func TestEvalAnswersOnTheHeldOutSet(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr bytes.Buffer
	argv := []string{"--config", cfg, "eval", "--answers", "../../testdata/heldout-es", "--json"}
	if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
		t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
	}
	var rep eval.AnswerReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	t.Logf("held out: first gold %.2f, has fact %.2f, false refusals %.2f, declined %.2f", o.FirstGold, o.HasFact, o.FalseRefusals, o.Declined)
	if o.Questions != 53 || o.HasFact < 0.30 || o.ConfidentOut > 0.30 {
		t.Errorf("held-out figures %+v: below the floor (53 questions, has fact 0.30, at most 0.30 of the unanswerable answered confidently)", o)
	}
}

// TestEvalFollowUpsOnTheProjectHandbook runs `cita eval --followups` on the project's own
// conversations: the offline rewrite must find the gold files better than the follow-up as
// asked (0.81 -> 0.90 of the human rewrite's 0.93 when written), and never lose a topic shift.
func TestEvalFollowUpsOnTheProjectHandbook(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr bytes.Buffer
	argv := []string{"--config", cfg, "eval", "--followups", "../../testdata/handbook/followups.jsonl", "--json"}
	if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
		t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
	}
	var rep eval.FollowUpReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	t.Logf("follow-ups: asked %.3f, rewritten %.3f, human %.3f, gap closed %.2f", o.Asked, o.Rewritten, o.Human, o.Closed)
	if o.N != 24 || o.Rewritten < o.Asked+0.05 || o.Closed < 0.5 {
		t.Errorf("overall %+v: the rewrite must close at least half the gap", o)
	}
	if s := rep.ByShape["shift"]; s.Rewritten < s.Asked {
		t.Errorf("topic shifts: rewritten %.3f below asked %.3f: the rewriter dragged the old topic in", s.Rewritten, s.Asked)
	}
}
