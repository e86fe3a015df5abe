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
		usage: `Usage: cita bench [--sizes 10000,100000] [--million] [--queries 300] [--json]

Builds synthetic corpora (realistic chunk lengths, a Zipf vocabulary, ten access groups) in an
isolated namespace, dropped afterwards, and reports for each size: indexing throughput with the
configured embedder (chunks/s), hybrid retrieval latency p50/p95 under an access filter that keeps
about 10% of the chunks, the same filtered query as a plain pgvector top-k (p95 and the ratio), and
the HNSW index's recall@10 against an exact scan under that filter. --million adds a 1M-chunk run
(allow an hour). --json prints one JSON object per size.

Flags:
`,
		run: runBench,
	})
}

func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags("bench", e, commands["bench"].usage)
	sizes := fs.String("sizes", "10000,100000", "comma-separated corpus sizes in chunks")
	million := fs.Bool("million", false, "also run 1,000,000 chunks")
	queries := fs.Int("queries", 300, "queries per size")
	asJSON := fs.Bool("json", false, "print one JSON object per size")
	if err := fs.Parse(args); err != nil {
		return err
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
		res, err := func() (*bench.Result, error) {
			defer func() {
				if err := pgstore.DropSchema(context.WithoutCancel(ctx), a.pool, schema); err != nil {
					e.logger.Error("drop bench namespace", slog.String("schema", schema), slog.String("error", err.Error()))
				}
			}()
			progress := func(msg string) {
				if !*asJSON {
					fmt.Fprintf(e.stderr, "  %s %s\n", time.Now().Format("15:04:05"), msg)
				}
			}
			return bench.Run(ctx, bench.Config{Chunks: n, Queries: *queries, Store: a.store, Embedder: a.embedder,
				Search: rag.NewHybrid(a.store, a.embedder, rag.DefaultHybridOptions()), Progress: progress})
		}()
		a.Close()
		if err != nil {
			return err
		}
		if *asJSON {
			if err := json.NewEncoder(e.stdout).Encode(res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%d chunks: index %.0f chunks/s | hybrid p50 %.2f ms p95 %.2f ms | plain pgvector p95 %.2f ms (hybrid/plain %.2fx) | ANN recall@10 %.3f under a %.0f%% filter\n",
			res.Chunks, res.IndexChunksPerS, res.HybridP50, res.HybridP95, res.VectorP95, res.HybridP95/res.VectorP95, res.ANNRecall10, res.FilterShare*100)
	}
	return nil
}
