package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// TestFeedbackExportBecomesAnEvaluationSet rates answers 👍 and 👎 (one 👎 with a comment),
// exports them with `cita feedback export`, checks the set's questions and corpus, fills the gold
// answer as an admin would and runs `cita eval --answers` on it.
func TestFeedbackExportBecomesAnEvaluationSet(t *testing.T) {
	ctx := context.Background()
	env := newFolderEnv(t, map[string]string{
		"policies/travel.md": "# Travel policy\n\nThe per diem in Madrid is 80 euros a day for meals and local transport.\n",
		"vacation.md":        "# Vacation policy\n\nEvery employee gets 22 vacation days per year.\n",
		"hr/salaries.md":     "# Salary bands\n\nSalary band B7 has a base salary of 5,440,000 per month.\n",
	})
	cfg, cita, store, handler := env.cfg, env.cita, env.store, env.handler
	everyone := rag.MustScope("everyone")
	rate := func(thread, question string, rating int, comment string) int64 {
		t.Helper()
		conv := bot.ConversationKey{Platform: "discord", Workspace: "111", Channel: "222", Thread: thread}
		out := handler.Handle(ctx, bot.Incoming{Conversation: conv, UserID: "U1", Text: question, Scope: everyone, Audience: bot.AudienceChannel}, nil)
		if out.AnswerID == 0 {
			t.Fatalf("%q: no answer recorded (%+v)", question, out)
		}
		fb := bot.Feedback{AnswerID: out.AnswerID, Conversation: conv, UserID: "U2", Rating: rating}
		if err := store.RecordFeedback(ctx, fb); err != nil {
			t.Fatal(err)
		}
		if comment != "" {
			if err := store.CommentFeedback(ctx, fb, comment); err != nil {
				t.Fatal(err)
			}
		}
		return out.AnswerID
	}
	down := rate("1", "What is the per diem in Madrid?", -1, "It is 95 euros since December")
	rate("2", "How many vacation days do I get per year?", 1, "")

	dir := filepath.Join(t.TempDir(), "set")
	summary := cita("feedback", "export", "--out", dir, "--since", "24h")
	if !strings.Contains(summary, "1 👎-rated answers") || !strings.Contains(summary, "cita eval --answers") {
		t.Errorf("summary %q", summary)
	}
	qs := readExported(t, filepath.Join(dir, "questions.jsonl"))
	if len(qs) != 1 {
		t.Fatalf("exported %d questions, want the one rated 👎", len(qs))
	}
	q := qs[0]
	if q["id"] != fmt.Sprintf("fb-%d", down) || q["question"] != "What is the per diem in Madrid?" || q["lang"] != "en" ||
		q["answerable"] != true || q["gold_answer"] != "" || q["down_votes"] != 1.0 {
		t.Errorf("question %v", q)
	}
	if c, _ := q["comments"].([]any); len(c) != 1 || c[0] != "It is 95 euros since December" {
		t.Errorf("comments %v", q["comments"])
	}
	if s, _ := q["standalone_query"].(string); s == "" {
		t.Error("no standalone query")
	}
	files, _ := q["cited_files"].([]any)
	if len(files) == 0 || files[0] != "policies/travel.md" {
		t.Fatalf("cited files %v, want policies/travel.md first", files)
	}
	body, err := os.ReadFile(filepath.Join(dir, "corpus", "policies", "travel.md"))
	if err != nil || !strings.Contains(string(body), "80 euros") {
		t.Fatalf("corpus file: %q, %v", body, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus", "hr")); err == nil {
		t.Error("the corpus holds a document the answer's audience may not read")
	}
	if out := runCode(ctx, cfg, "feedback", "export", "--out", dir); out == 0 {
		t.Error("a second export overwrote questions.jsonl")
	}

	// The admin writes the right answer; the set then runs as any handbook set.
	q["gold_answer"] = "80 euros"
	q["gold_files"] = []string{"policies/travel.md"}
	line, _ := json.Marshal(q)
	if err := os.WriteFile(filepath.Join(dir, "questions.jsonl"), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep eval.AnswerReport
	if err := json.Unmarshal([]byte(cita("eval", "--answers", dir, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Overall.Questions != 1 || rep.Overall.HasFact != 1 || rep.Overall.FirstGold != 1 {
		t.Fatalf("eval of the exported set: %+v", rep.Overall)
	}
}

func runCode(ctx context.Context, cfg string, args ...string) int {
	var stdout, stderr bytes.Buffer
	return run(ctx, append([]string{"--config", cfg}, args...), &stdout, &stderr)
}

func readExported(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":           {},
		"48h":        now.Add(-48 * time.Hour),
		"2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseSince("last week", now); err == nil {
		t.Error("parseSince accepted \"last week\"")
	}
}
