package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/bench"
	"github.com/citahq/cita/rag/pgstore"
)

func init() {
	register("bench", &command{
		summary: "benchmark indexing and retrieval on synthetic corpora",
		usage: `Usage: cita bench [--sizes 10000,100000] [--million] [--queries 300] [--question-words N] [--json]
       cita bench --corpus DIR [--questions FILE] [--repeat N] [--min-words N] [--translation compare] [--json]

Builds synthetic corpora (realistic chunk lengths, a Zipf vocabulary, ten access groups) in an
isolated namespace, dropped afterwards, and reports for each size: indexing throughput with the
configured embedder (chunks/s), hybrid retrieval latency p50/p95 under an access filter that keeps
about 10% of the chunks, for questions of 6-25 words (half of them Spanish, half English, with
their stop words), each arm alone (full text; embedding + vector search), the same filtered query
as a plain pgvector top-k (p50/p95 and the ratio), and
the HNSW index's recall@10 against an exact scan under that filter, and the answer cache's hit
latency p50/p95 (answers citing 3-5 documents, checked against their versions) beside its miss
p95 under another scope. --million adds a 1M-chunk run (allow an hour). --json prints one JSON
object per size.

--corpus DIR times a real corpus instead: a BEIR folder (corpus.jsonl) or a folder of files is
indexed as cita index does (chunks/s), then every question of --questions FILE (default: DIR's
queries.jsonl or questions.jsonl, or a questions.jsonl beside DIR) is asked over all of it,
reported as above. --translation compare times the same questions without and with the offline
translator instead (alternating, so load falls on both) and prints hybrid p50/p95 for each and
the p95 ratio; with --min-words N only questions of at least N words are asked (long English
questions: --corpus ../shared/eval/xquad-en --min-words 14 --repeat 3). cita bench --mcp
measures the MCP server's search tool instead (cita help bench --mcp is in docs/mcp.md).

Flags:
`,
		run: runBench,
	})
}

func runBench(ctx context.Context, e *env, args []string) error {
	if loadRequested(args) { // cita bench --load N: see cmd_bench_load.go
		return runLoadBench(ctx, e, args)
	}
	if mcpBenchRequested(args) { // cita bench --mcp: see cmd_bench_mcp.go
		return runMCPBench(ctx, e, args)
	}
	fs := newFlags("bench", e, commands["bench"].usage)
	sizes := fs.String("sizes", "10000,100000", "comma-separated corpus sizes in chunks")
	million := fs.Bool("million", false, "also run 1,000,000 chunks")
	queries := fs.Int("queries", 300, "queries per size")
	asJSON := fs.Bool("json", false, "print one JSON object per size")
	efSearch := fs.Int("ef-search", 0, "override pgvector's hnsw.ef_search for the vector arm (default: the store's)")
	keep := fs.Bool("keep", false, "keep the benchmark's schema for inspection (printed) instead of dropping it")
	explain := fs.Bool("explain", false, "print EXPLAIN (ANALYZE, BUFFERS) of each arm's main statement for the questions at the hybrid median and 95th percentile")
	corpus := fs.String("corpus", "", "instead: index this real corpus (a BEIR folder with corpus.jsonl, or a folder of files) and time its questions")
	questions := fs.String("questions", "", "with --corpus: the questions (JSON Lines, a \"text\" or \"question\" per line; default: the folder's queries.jsonl or questions.jsonl)")
	repeat := fs.Int("repeat", 1, "with --corpus: ask every question this many times")
	translation := fs.String("translation", "", "with --corpus: \"compare\" times hybrid search of the same questions without and with the offline translator (see --translator) and prints the p95 ratio")
	minWords := fs.Int("min-words", 0, "with --corpus: only the questions of at least this many words (long questions)")
	compare := fs.Bool("compare", false, "with --corpus (a BEIR folder): nDCG@10, recall@10 and latency of cita's hybrid, plain pgvector and the textbook PostgreSQL hybrid (plainto_tsquery + ts_rank_cd fused with pgvector in one statement) on the same index and questions")
	questionWords := fs.Int("question-words", 0, "synthetic questions of exactly this many words (default: 6-25 words each)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (go tool pprof) to FILE")
	office := fs.Int("office", 0, "instead: generate N mixed office files and measure indexing them (files/s, peak memory)")
	officeDir := fs.String("office-dir", "", "with --office: write the files here and keep them (default: a temporary folder)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *corpus != "" {
		return runCorpusBench(ctx, e, corpusBenchOptions{dir: *corpus, questions: *questions, repeat: *repeat,
			minWords: *minWords, translation: *translation, compare: *compare, asJSON: *asJSON})
	}
	if *office > 0 {
		return runOfficeBench(ctx, e, *office, *officeDir, *asJSON)
	}
	var ns []int
	for _, s := range splitList(*sizes) {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n < 100 {
			return fmt.Errorf("--sizes: %q is not a size of at least 100 chunks", s)
		}
		ns = append(ns, n)
	}
	if *million {
		ns = append(ns, 1_000_000)
	}
	for _, n := range ns {
		schema := "cita_bench_" + randomHex(6)
		a, err := openApp(ctx, e, schema)
		if err != nil {
			return err
		}
		var cacheRes *bench.CacheResult
		res, err := func() (*bench.Result, error) {
			defer func() {
				if *keep {
					fmt.Fprintf(e.stderr, "kept schema %s\n", schema)
					return
				}
				if err := pgstore.DropSchema(context.WithoutCancel(ctx), a.pool, schema); err != nil {
					e.logger.Error("drop bench namespace", slog.String("schema", schema), slog.String("error", err.Error()))
				}
			}()
			progress := func(msg string) {
				if !*asJSON {
					fmt.Fprintf(e.stderr, "  %s %s\n", time.Now().Format("15:04:05"), msg)
				}
			}
			if *efSearch > 0 {
				a.store.EfSearch = *efSearch
			}
			cfg := bench.Config{Chunks: n, Queries: *queries, QuestionWords: *questionWords, Store: a.store, Embedder: a.embedder,
				Search: rag.NewHybrid(a.store, a.embedder, rag.DefaultHybridOptions()), Progress: progress}
			if *explain {
				cfg.Explain = explainQuestion(e, a)
			}
			res, err := bench.Run(ctx, cfg)
			if err != nil {
				return nil, err
			}
			progress("measuring the answer cache")
			cacheRes, err = bench.RunCache(ctx, bench.CacheConfig{Cache: pgstore.NewCache(a.pool, pgstore.CacheOptions{Variant: "bench"}, e.logger),
				Index: a.store, Embedder: a.embedder})
			return res, err
		}()
		a.Close()
		if err != nil {
			return err
		}
		if *asJSON {
			out := struct {
				*bench.Result
				Cache *bench.CacheResult `json:"cache"`
			}{res, cacheRes}
			if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%d chunks: index %.0f chunks/s (first index; %.0f chunks/s adding more) | ANN recall@10 %.3f under a %.0f%% filter | %d questions of %.1f words on average\n",
			res.Chunks, res.IndexChunksPerS, res.IncrementalChunksPerS, res.ANNRecall10, res.FilterShare*100, res.Questions, res.QuestionWords)
		printLatencies(e, &res.Latencies)
		fmt.Fprintf(e.stdout, "%d chunks: cache hit p50 %.2f ms p95 %.2f ms over %d lookups (%d entries; miss under another scope p95 %.2f ms)\n",
			res.Chunks, cacheRes.HitP50, cacheRes.HitP95, cacheRes.Lookups, cacheRes.Entries, cacheRes.MissP95)
	}
	return nil
}
