package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

func init() {
	register("eval", &command{
		summary: "measure retrieval or answer quality on an evaluation set",
		usage: `Usage: cita eval --dataset DIR [--mode fts|vector|hybrid|all] [--k 10] [--json]
       cita eval --answers DIR [--json] [--misses]
       cita eval --rewrites FILE [--json]
       cita eval --translation FILE [--json] [--misses]
       cita eval --topics FILE [--json]
       cita eval --followups FILE [--json]
       cita eval --abstain --dataset DIR [--json]
       cita eval --leaks [--questions 20000] [--seed S]

Indexes the dataset's corpus.jsonl into an isolated namespace (a schema of its own that neither
sees nor touches your documents, dropped afterwards), runs queries.jsonl, and scores the rankings
against qrels/test.tsv: nDCG@10, Recall@10, MRR@10, Recall@100, and query latency p50/p95 for each
mode. Queries with a "history" field are rewritten into standalone queries first. --json prints
one JSON object per mode. Corpus entries with no text are skipped (and counted). Search runs
as cita is wired, with the offline translator for cross-lingual search when it is installed;
--translator compares the translators (or turns it off).

--answers DIR measures answers, not rankings, on a handbook set: DIR/corpus/ (documents) and
DIR/questions.jsonl (id, question, lang, answerable, gold_files, gold_answer, alt_answers, kind).
The corpus is indexed into an isolated namespace and every question is asked through the
pipeline the chat adapters use (offline, or the configured chat model), without the answer
cache. It prints, overall and per language: the share of answerable questions whose first source
is a gold file, that cite a gold file, whose answer contains the gold answer or an alternative
(case and accents folded), and that were refused; the share of unanswerable questions declined;
and latency p50/p95. --misses lists every miss with the sources it cited; --json prints one
object with every question's outcome (only the misses with --misses).

--leaks runs the leak harness against the configured database, in a namespace of its own that
is dropped afterwards: a random organisation (people, groups, public and private Slack channels,
a Discord guild with roles), documents each carrying a canary phrase, a title code and a path
code, two replicas on the database, and --questions questions built from the canaries through
Slack, Discord, the CLI, the MCP tools and agent steps, with people joining and leaving channels
and gaining and losing groups between rounds. It prints the questions and clicks per path and
the time taken, and fails when any code reached someone who may not read its document.

Flags:
`,
		run: runEval,
	})
}

// measureTranslatorTimeout bounds a translator query in the eval commands.
const measureTranslatorTimeout = 20 * time.Second

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlags("eval", e, commands["eval"].usage)
	dataset := fs.String("dataset", "", "folder with corpus.jsonl, queries.jsonl and qrels/test.tsv")
	mode := fs.String("mode", "all", "fts, vector, hybrid or all")
	asJSON := fs.Bool("json", false, "print one JSON object per mode")
	answers := fs.String("answers", "", "measure answers on a handbook set: DIR/corpus/ and DIR/questions.jsonl")
	misses := fs.Bool("misses", false, "with --answers: list every miss with the sources it cited")
	minEvidence := fs.Float64("min-evidence", 0, "with --answers: the relevance guard's threshold (default: the configured or built-in one)")
	confident := fs.Float64("confident-evidence", 0, "with --answers: the confident threshold (default: the configured or built-in one)")
	topics := fs.String("topics", "", "measure the gap record's grouping of questions into topics on a labelled set (e.g. testdata/gaps/dev.jsonl)")
	translation := fs.String("translation", "", "measure whether cross-lingual search keeps the meant sense of workplace terms (e.g. testdata/translation/terms.jsonl)")
	rewrites := fs.String("rewrites", "", "measure follow-up rewriting on a CANARD jsonl file instead (e.g. ../shared/eval/canard/dev-sample.jsonl)")
	followups := fs.String("followups", "", "measure follow-up rewriting on a set of conversations over FILE's folder's corpus/ (e.g. testdata/handbook/followups.jsonl)")
	abstain := fs.Bool("abstain", false, "measure the relevance guard instead: index half the articles, ask every question, report abstention precision/recall per threshold")
	weights := fs.String("weights", "", "override the RRF weights, e.g. fts=1,vector=0.3, and the translation's (translated=0.7, translated_vector=1) (for calibration)")
	translator := fs.String("translator", "auto", "offline query translator for cross-lingual search: auto (Apertium when installed), apertium, freedict, both or off")
	leaks := fs.Bool("leaks", false, "run the leak harness (see above)")
	leakQuestions := fs.Int("questions", 20000, "with --leaks: how many questions to ask")
	leakSeed := fs.Uint64("seed", 1, "with --leaks: the seed of the organisation, documents and questions")
	_ = fs.Int("k", 10, "cut-off of the headline metrics (nDCG, Recall and MRR are reported @10)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e.translator = *translator
	// Figures of quality must not depend on how busy the machine is: a translator query that
	// waits its turn under load is not cut short as a chat answer's would be.
	e.translatorTimeout = measureTranslatorTimeout
	if *leaks {
		return runLeakEval(ctx, e, *leakQuestions, *leakSeed)
	}
	if *answers != "" {
		return runAnswerEval(ctx, e, *answers, *asJSON, *misses, *minEvidence, *confident)
	}
	if *rewrites != "" {
		return runRewriteEval(ctx, e, *rewrites, *asJSON)
	}
	if *topics != "" {
		return runTopicEval(ctx, e, *topics, *asJSON)
	}
	if *translation != "" {
		return runTranslationEval(ctx, e, *translation, *asJSON, *misses)
	}
	if *followups != "" {
		return runFollowUpEval(ctx, e, *followups, *asJSON)
	}
	if *dataset == "" {
		return fmt.Errorf("--dataset is required, e.g. --dataset ../shared/eval/xquad-es")
	}
	ds, a, closeApp, err := openEvalSet(ctx, e, eval.Load, *dataset)
	if err != nil {
		return err
	}
	defer closeApp()
	var unanswerable map[string]bool
	if *abstain {
		ds, unanswerable = eval.SplitByTitle(ds)
	}
	modes := []string{*mode}
	if *mode == "all" {
		modes = []string{"fts", "vector", "hybrid"}
	}
	docs, empty := ds.Documents()
	rep, err := evalindex.Documents(ctx, a.store, a.embedder, e.logger, "eval:"+ds.Name, docs, []string{"eval"})
	if err != nil {
		return err
	}
	if !*asJSON {
		fmt.Fprintf(e.stdout, "%s: %d documents (%d chunks), %d queries\n", ds.Name, len(docs), rep.Chunks, len(ds.Queries))
		if empty > 0 {
			fmt.Fprintf(e.stdout, "skipped %d documents with no text\n", empty)
		}
		fmt.Fprintf(e.stdout, "%-7s %8s %9s %7s %10s %7s %7s\n", "mode", "nDCG@10", "Recall@10", "MRR@10", "Recall@100", "p50 ms", "p95 ms")
	}
	rewriter, err := a.rewriter(ctx, e)
	if err != nil {
		return err
	}
	if *weights != "" {
		opts := a.hybridOptions()
		for _, kv := range splitList(*weights) {
			var arm string
			var w float64
			if _, err := fmt.Sscanf(strings.Replace(kv, "=", " ", 1), "%s %g", &arm, &w); err != nil {
				return fmt.Errorf("--weights %q: want arm=weight", kv)
			}
			switch arm {
			case "translated": // the translated words' weight in the full-text arm
				opts.TranslatedWeight = w
			case "translated_vector": // the translation's weight in the vector arm's query vector
				opts.TranslatedVectorWeight = w
			default:
				opts.Weights[rag.Arm(arm)] = w
			}
		}
		a.search = rag.NewHybrid(a.store, a.embedder, opts)
	}
	scope := rag.MustScope("eval")
	if *abstain {
		points, err := eval.AbstainCurve(ctx, ds, unanswerable, a.search, scope,
			[]float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "relevance guard on %s: %d of %d questions have no answer in the index (default threshold %.2f)\n",
			ds.Name, len(unanswerable), len(ds.Queries), rag.DefaultMinEvidence)
		fmt.Fprintf(e.stdout, "%9s %9s %7s %13s\n", "threshold", "precision", "recall", "false-abstain")
		for _, p := range points {
			if *asJSON {
				if err := json.NewEncoder(e.stdout).Encode(p); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(e.stdout, "%9.2f %9.3f %7.3f %13.3f\n", p.Threshold, p.Precision, p.Recall, p.FalseAbstain)
		}
		return nil
	}
	for _, m := range modes {
		res, err := eval.Run(ctx, ds, a.search, scope, m, rewriter)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := json.NewEncoder(e.stdout).Encode(res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%-7s %8.4f %9.4f %7.4f %10.4f %7.2f %7.2f\n", res.Mode, res.NDCG10, res.Recall10, res.MRR10, res.Recall100, res.P50ms, res.P95ms)
	}
	return nil
}

// openEvalSet loads an evaluation set from path with load, then opens a scratch namespace to
// measure it in (see openScratchApp); closeApp drops it. A set that does not load opens nothing.
func openEvalSet[T any](ctx context.Context, e *env, load func(string) (T, error), path string) (set T, a *app, closeApp func(), err error) {
	if set, err = load(path); err != nil {
		return set, nil, nil, err
	}
	a, closeApp, err = openScratchApp(ctx, e, "cita_eval")
	return set, a, closeApp, err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
