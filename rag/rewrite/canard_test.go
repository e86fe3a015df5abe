package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/fakeopenai"

	"github.com/citahq/cita/rag"
)

// loadSharedCanard returns the CANARD dev sample from CITA_SHARED_DIR, skipping without it.
func loadSharedCanard(t *testing.T) []Sample {
	t.Helper()
	dir := os.Getenv("CITA_SHARED_DIR")
	if dir == "" {
		t.Skip("CITA_SHARED_DIR is not set: the CANARD recovery measurement needs $CITA_SHARED_DIR/eval/canard/dev-sample.jsonl")
	}
	samples, err := LoadCanard(filepath.Join(dir, "eval", "canard", "dev-sample.jsonl"))
	if err != nil {
		t.Fatalf("load canard: %v", err)
	}
	if len(samples) < 100 {
		t.Fatalf("loaded %d canard samples, want the 600 of the dev sample", len(samples))
	}
	return samples
}

// TestOfflineCanardRecovery is the target: the offline rewriter recovers at least half of
// the terms the human rewrites added.
func TestOfflineCanardRecovery(t *testing.T) {
	t.Parallel()
	samples := loadSharedCanard(t)
	rec := CanardRecovery(context.Background(), Offline{}, samples)
	t.Logf("offline canard recovery over %d samples (%d scored, %d rewritten): mean %.3f, micro %.3f (%d/%d terms), precision of appended terms %.3f (%d appended)",
		rec.Samples, rec.Scored, rec.Rewritten, rec.Mean, rec.Micro, rec.Recovered, rec.Added, rec.Precision, rec.Appended)
	if rec.Errors != 0 {
		t.Errorf("offline rewriter failed on %d samples", rec.Errors)
	}
	if rec.Mean < 0.5 {
		t.Errorf("mean recovery %.3f, want >= 0.5", rec.Mean)
	}

	baseline := CanardRecovery(context.Background(), identity{}, samples)
	t.Logf("baseline (question unchanged): mean %.3f", baseline.Mean)
	if baseline.Mean != 0 || baseline.Rewritten != 0 {
		t.Errorf("identity rewriter: %+v, want no recovery (the metric counts only terms the question lacks)", baseline)
	}
}

type identity struct{}

func (identity) Rewrite(_ context.Context, q string, _ []rag.Turn) (string, error) { return q, nil }

// TestLLMPromptOnCanard runs the LLM rewriter over the CANARD sample against the fake: the
// recovery of a fake model means nothing, so it checks what the model is sent and when.
func TestLLMPromptOnCanard(t *testing.T) {
	t.Parallel()
	samples := loadSharedCanard(t)
	srv := fakeopenai.New(t, fakeopenai.WithChatFunc(func(r fakeopenai.Request) (string, *fakeopenai.HTTPError) {
		return "Rewritten: \"standalone question\"", nil
	}))
	l := newLLM(t, srv)
	wantCalls := 0
	for _, s := range samples {
		if NeedsContext(s.Question) && len(s.History) > 0 {
			wantCalls++
		}
	}
	rec := CanardRecovery(context.Background(), l, samples)
	reqs := srv.Requests()
	t.Logf("llm rewriter over the fake: %d model calls for %d samples (%d skipped as standalone)", len(reqs), rec.Samples, rec.Samples-len(reqs))
	if len(reqs) != wantCalls || wantCalls == 0 || wantCalls == len(samples) {
		t.Fatalf("model calls = %d, want one per follow-up (%d of %d)", len(reqs), wantCalls, len(samples))
	}
	i := 0
	for _, s := range samples {
		if !NeedsContext(s.Question) {
			continue
		}
		user := reqs[i].Messages[1].Content
		i++
		if !strings.Contains(user, "Last message: "+oneLine(s.Question)+"\n") {
			t.Fatalf("prompt lacks the question %q:\n%s", s.Question, user)
		}
		if turns := strings.Count(user, "\nUser: ") + strings.Count(user, "\nAssistant: "); turns != min(len(s.History), DefaultMaxTurns) {
			t.Fatalf("prompt holds %d turns, want %d:\n%s", turns, min(len(s.History), DefaultMaxTurns), user)
		}
	}
}

func TestCanardRecoveryMetric(t *testing.T) {
	t.Parallel()
	samples := []Sample{
		// added: andrew, carnegie; the rewriter below recovers carnegie only -> 0.5
		{Question: "Did he donate money?", Rewrite: "Did Andrew Carnegie donate money?"},
		// added: nothing -> not scored
		{Question: "What is Chapter V?", Rewrite: "What is Chapter V?"},
		// added: kelly -> recovered -> 1.0
		{Question: "Did clarkson sell well?", Rewrite: "Did Kelly Clarkson sell well?"},
	}
	outputs := map[string]string{
		"Did he donate money?":    "Did he donate money? Carnegie libraries",
		"What is Chapter V?":      "What is Chapter V?",
		"Did clarkson sell well?": "Did clarkson sell well? Kelly",
	}
	rec := CanardRecovery(context.Background(), mapRewriter(outputs), samples)
	if rec.Samples != 3 || rec.Scored != 2 || rec.Rewritten != 2 || rec.Added != 3 || rec.Recovered != 2 {
		t.Fatalf("recovery = %+v", rec)
	}
	if rec.Mean != 0.75 || rec.Micro != 2.0/3 || rec.Appended != 3 || rec.Precision != 2.0/3 {
		t.Errorf("mean %v micro %v precision %v (%d appended), want 0.75, 2/3, 2/3 (3)", rec.Mean, rec.Micro, rec.Precision, rec.Appended)
	}
}

type mapRewriter map[string]string

func (m mapRewriter) Rewrite(_ context.Context, q string, _ []rag.Turn) (string, error) {
	return m[q], nil
}

func TestLoadCanard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	writeFile(t, good, `{"history": ["Andrew Carnegie", "Libraries", "Where?", "In the US."], "question": "Why?", "rewrite": "Why did Carnegie fund libraries?"}`+"\n\n")
	samples, err := LoadCanard(good)
	if err != nil || len(samples) != 1 {
		t.Fatalf("LoadCanard = %v, %v", samples, err)
	}
	roles := ""
	for _, turn := range samples[0].History {
		roles += turn.Role[:1]
	}
	if roles != "uuua" || samples[0].Question != "Why?" {
		t.Errorf("roles %q question %q; want title and section as user turns, then user/assistant", roles, samples[0].Question)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	writeFile(t, bad, `{"question": "a", "rewrite": "b"}`+"\n"+`{"question": "", "rewrite": "b"}`+"\n")
	if _, err := LoadCanard(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("LoadCanard(bad) error = %v, want one naming line 2", err)
	}
	if _, err := LoadCanard(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("LoadCanard(missing) succeeded")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
