package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag/bench"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/sync/indexer"
)

// corpusBenchGroup is the one access group a corpus benchmark indexes under: every question
// searches the whole corpus.
const corpusBenchGroup = "bench"

// corpusBenchResult is what `cita bench --corpus DIR --json` prints.
type corpusBenchResult struct {
	Corpus          string  `json:"corpus"`
	Documents       int     `json:"documents"`
	Chunks          int     `json:"chunks"`
	IndexChunksPerS float64 `json:"index_chunks_per_s"`
	bench.Latencies
}

// corpusBenchOptions are cita bench --corpus's flags.
type corpusBenchOptions struct {
	dir, questions string
	repeat         int
	minWords       int    // only questions of at least this many words
	translation    string // "compare": time without and with the translator
	compare        bool   // score and time cita's hybrid, plain pgvector and the textbook hybrid
	asJSON         bool
}

// runCorpusBench indexes a real corpus (a BEIR folder or a folder of files) into a scratch
// namespace and times its questions (opts.questions, or the folder's own) repeat times over.
func runCorpusBench(ctx context.Context, e *env, opts corpusBenchOptions) error {
	dir, questionsPath, repeat, asJSON := opts.dir, opts.questions, opts.repeat, opts.asJSON
	if opts.translation != "" && opts.translation != "compare" {
		return fmt.Errorf("--translation %q: the one mode is compare", opts.translation)
	}
	if questionsPath == "" {
		questionsPath = findQuestions(dir)
		if questionsPath == "" {
			return fmt.Errorf("--corpus %s: no queries.jsonl or questions.jsonl in it or beside it; name one with --questions", dir)
		}
	}
	questions, err := eval.LoadQuestions(questionsPath)
	if err != nil {
		return err
	}
	questions = longQuestions(questions, opts.minWords)
	if len(questions) == 0 {
		return fmt.Errorf("--corpus %s: no question of at least %d words in %s", dir, opts.minWords, questionsPath)
	}
	a, closeApp, err := openScratchApp(ctx, e, "cita_bench")
	if err != nil {
		return err
	}
	defer closeApp()
	start := time.Now()
	var rep *indexer.Report
	groups := []string{corpusBenchGroup}
	var judged *eval.Dataset // with --compare: the BEIR set with its judgements
	if _, err := os.Stat(filepath.Join(dir, "corpus.jsonl")); err == nil {
		load := eval.LoadCorpus
		if opts.compare {
			load = eval.Load
		}
		ds, err := load(dir)
		if err != nil {
			return err
		}
		judged = ds
		docs, _ := ds.Documents()
		rep, err = evalindex.Documents(ctx, a.store, a.embedder, e.logger, "bench:"+ds.Name, docs, groups)
		if err != nil {
			return err
		}
	} else if opts.compare {
		return fmt.Errorf("--compare needs a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv): %s has no corpus.jsonl", dir)
	} else {
		rep, err = evalindex.Folder(ctx, a.store, a.embedder, e.logger, "bench:"+filepath.Base(dir), dir, groups)
		if err != nil {
			return err
		}
	}
	took := time.Since(start)
	if rep.Chunks == 0 {
		return fmt.Errorf("--corpus %s: nothing indexed", dir)
	}
	var asked []string
	for i := 0; i < max(repeat, 1); i++ {
		asked = append(asked, questions...)
	}
	if opts.compare {
		return compareBaselines(ctx, e, a, judged, asJSON)
	}
	if opts.translation == "compare" {
		return compareTranslation(ctx, e, a, dir, rep.Chunks, asked, asJSON)
	}
	lat, err := bench.RunQuestions(ctx, a.store, a.embedder, a.search, asked, corpusBenchGroup)
	if err != nil {
		return err
	}
	res := corpusBenchResult{Corpus: dir, Documents: rep.Added + rep.Changed + rep.Unchanged, Chunks: rep.Chunks,
		IndexChunksPerS: float64(rep.Chunks) / took.Seconds(), Latencies: *lat}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(res)
	}
	fmt.Fprintf(e.stdout, "%s: %d documents, %d chunks, indexed at %.0f chunks/s; %d questions of %.1f words on average\n",
		dir, res.Documents, res.Chunks, res.IndexChunksPerS, lat.Questions, lat.QuestionWords)
	printLatencies(e, lat)
	return nil
}

// printLatencies prints hybrid beside plain pgvector, then each arm alone and inside hybrid.
func printLatencies(e *env, l *bench.Latencies) {
	fmt.Fprintf(e.stdout, "  hybrid p50 %.2f ms p95 %.2f ms | plain pgvector p50 %.2f ms p95 %.2f ms (hybrid/plain p95 %.2fx)\n",
		l.HybridP50, l.HybridP95, l.VectorP50, l.VectorP95, l.HybridP95/max(l.VectorP95, 0.001))
	fmt.Fprintf(e.stdout, "  each arm alone: full-text p50 %.2f ms p95 %.2f ms, vector (embed + search) p50 %.2f ms p95 %.2f ms\n",
		l.FTSAloneP50, l.FTSAloneP95, l.VectorAloneP50, l.VectorAloneP95)
	fmt.Fprintf(e.stdout, "  inside hybrid (concurrent): full-text p50 %.2f ms p95 %.2f ms, vector p50 %.2f ms p95 %.2f ms\n",
		l.FTSArmP50, l.FTSArmP95, l.VectorArmP50, l.VectorArmP95)
}

// findQuestions returns the questions file of a corpus folder: its queries.jsonl or
// questions.jsonl, or a questions.jsonl beside it (a handbook set's corpus/); "" when none.
func findQuestions(dir string) string {
	for _, p := range []string{
		filepath.Join(dir, "queries.jsonl"), filepath.Join(dir, "questions.jsonl"),
		filepath.Join(filepath.Dir(filepath.Clean(dir)), "questions.jsonl"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
