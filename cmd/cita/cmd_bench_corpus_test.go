package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/testdb"
)

// TestBenchCorpus runs `cita bench --corpus` on a BEIR folder and on a folder of files with a
// questions.jsonl beside it: every document is indexed, every question asked (times --repeat),
// and each arm's timings are reported; a missing questions file is an error that says so.
func TestBenchCorpus(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	benchJSON := func(args ...string) corpusBenchResult {
		t.Helper()
		var stdout, stderr bytes.Buffer
		argv := append([]string{"--config", cfg, "bench", "--json"}, args...)
		if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
			t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
		}
		var res corpusBenchResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, stdout.String())
		}
		return res
	}
	check := func(t *testing.T, res corpusBenchResult, docs, questions int) {
		t.Helper()
		if res.Documents != docs || res.Chunks < docs || res.Questions != questions {
			t.Fatalf("got %d documents, %d chunks, %d questions; want %d documents, %d questions", res.Documents, res.Chunks, res.Questions, docs, questions)
		}
		if res.IndexChunksPerS <= 0 || res.HybridP95 <= 0 || res.FTSAloneP95 <= 0 || res.VectorAloneP95 <= 0 || res.VectorP95 <= 0 || res.FTSArmP95 <= 0 {
			t.Fatalf("a timing is missing: %+v", res)
		}
		if res.QuestionWords < 5 {
			t.Fatalf("questions of %.1f words on average, want the file's (at least 5)", res.QuestionWords)
		}
	}

	t.Run("BEIR folder", func(t *testing.T) {
		dir := t.TempDir()
		var corpus, queries strings.Builder
		for i := range 12 {
			fmt.Fprintf(&corpus, `{"_id":"d%d","title":"Policy %d","text":"Travel policy number %d: expenses over %d euros need the approval of the finance team before the trip."}`+"\n", i, i, i, 100*i)
		}
		for i := range 5 {
			fmt.Fprintf(&queries, `{"_id":"q%d","text":"who has to approve my travel expenses when they are over %d euros before the trip starts?"}`+"\n", i, 100*i)
		}
		write(t, filepath.Join(dir, "corpus.jsonl"), corpus.String())
		write(t, filepath.Join(dir, "queries.jsonl"), queries.String())
		check(t, benchJSON("--corpus", dir, "--repeat", "2"), 12, 10)
	})

	t.Run("folder of files with questions beside it", func(t *testing.T) {
		root := t.TempDir()
		docs := filepath.Join(root, "corpus")
		if err := os.MkdirAll(docs, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(docs, "vacaciones.md"), "# Vacaciones\n\nCada empleado tiene 23 días laborables de vacaciones al año, que se piden con dos semanas de antelación.\n")
		write(t, filepath.Join(docs, "expenses.md"), "# Expenses\n\nReceipts older than 90 days are not reimbursed; submit them through the expense tool.\n")
		write(t, filepath.Join(root, "questions.jsonl"), `{"id":"g1","question":"¿cuántos días de vacaciones tengo al año y con cuánta antelación tengo que pedirlos?"}`+"\n"+
			`{"id":"g2","question":"how old can a receipt be before the company will no longer reimburse it to me?"}`+"\n")
		check(t, benchJSON("--corpus", docs), 2, 2)
	})

	t.Run("translation compare, long questions only", func(t *testing.T) {
		dir := t.TempDir()
		var corpus, queries strings.Builder
		// Bilingual: an English question is translated only when Spanish documents are readable.
		for i := range 4 {
			fmt.Fprintf(&corpus, `{"_id":"e%d","title":"Política %d","text":"La política de viajes número %d: los gastos de más de %d euros necesitan la aprobación del equipo de finanzas antes del viaje."}`+"\n", i, i, i, 100*i)
		}
		for i := range 8 {
			fmt.Fprintf(&corpus, `{"_id":"d%d","title":"Policy %d","text":"Travel policy number %d: expenses over %d euros need the approval of the finance team before the trip."}`+"\n", i, i, i, 100*i)
		}
		for i := range 3 { // three long questions, and two short ones the filter drops
			fmt.Fprintf(&queries, `{"_id":"l%d","text":"who has to approve my travel expenses when they are over %d euros before the trip starts?"}`+"\n", i, 100*i)
			if i < 2 {
				fmt.Fprintf(&queries, `{"_id":"s%d","text":"travel expenses %d"}`+"\n", i, i)
			}
		}
		write(t, filepath.Join(dir, "corpus.jsonl"), corpus.String())
		write(t, filepath.Join(dir, "queries.jsonl"), queries.String())
		var stdout, stderr bytes.Buffer
		argv := []string{"--config", cfg, "bench", "--json", "--corpus", dir, "--min-words", "10", "--translation", "compare"}
		if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
			if strings.Contains(stderr.String(), "no offline translator") {
				t.Skip("no offline translator installed (scripts/install-translation.sh)")
			}
			t.Fatalf("cita %v exited %d: %s", argv, code, stderr.String())
		}
		var res struct {
			Questions  int     `json:"questions"`
			OffP95     float64 `json:"hybrid_off_p95_ms"`
			OnP95      float64 `json:"hybrid_on_p95_ms"`
			Ratio      float64 `json:"on_off_p95_ratio"`
			Translated int     `json:"translated"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, stdout.String())
		}
		if res.Questions != 3 || res.OffP95 <= 0 || res.OnP95 <= 0 || res.Ratio <= 0 {
			t.Errorf("got %+v; want the 3 long questions timed both ways, with a ratio", res)
		}
		if res.Translated != 3 {
			t.Errorf("%d of 3 searches with the translator searched a translation", res.Translated)
		}
	})

	t.Run("no questions", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.md"), "# A\n\nSome text.\n")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"--config", cfg, "bench", "--corpus", dir}, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "--questions") {
			t.Fatalf("exit %d, stderr %q: want an error naming --questions", code, stderr.String())
		}
	})
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
