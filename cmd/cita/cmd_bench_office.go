package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/officebench"
)

// officeBenchSeed fixes the generated folder, so runs compare like with like.
const officeBenchSeed = 2026

// runOfficeBench generates n mixed office files (into dir, or a temporary folder removed
// afterwards when dir is ""), indexes them into a namespace of their own that is dropped
// afterwards, and prints files/s, chunks/s and peak memory of the indexing alone (listing,
// reading, extracting, chunking, embedding and writing; pdfium is started before measuring).
func runOfficeBench(ctx context.Context, e *env, n int, dir string, asJSON bool) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cita-officebench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	genStart := time.Now()
	folder, err := officebench.Generate(ctx, dir, n, officeBenchSeed)
	if err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(e.stderr, "generated %d files (%.1f MiB, largest %s %.0f KiB) in %s in %.1fs: %v\n",
			folder.Files, float64(folder.Bytes)/(1<<20), folder.Largest, float64(folder.LargestBytes)/(1<<10), dir, time.Since(genStart).Seconds(), folder.ByFormat)
	}
	a, closeApp, err := openScratchApp(ctx, e, "cita_bench")
	if err != nil {
		return err
	}
	defer closeApp()

	warmStart := time.Now()
	if err := officebench.WarmUp(ctx); err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(e.stderr, "pdfium ready in %.1fs (not measured)\n", time.Since(warmStart).Seconds())
	}
	meter := officebench.StartMeter(20 * time.Millisecond)
	start := time.Now()
	items, complete, err := indexer.ListFolder(ctx, dir, func(string) []string { return []string{"bench"} })
	if err != nil {
		meter.Stop()
		return err
	}
	rep, err := indexer.New(a.store, a.embedder, indexer.Options{}, e.logger).Sync(ctx, "officebench", items, complete)
	took := time.Since(start)
	peaks := meter.Stop()
	if err != nil {
		return err
	}
	res := officebench.NewResult(rep.Listed, len(rep.Failed), rep.Chunks, took, peaks)
	res.Bytes, res.LargestBytes = folder.Bytes, folder.LargestBytes
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(res)
	}
	fmt.Fprintf(e.stdout, "office: %s\n", res)
	for _, f := range rep.Failed {
		fmt.Fprintf(e.stderr, "  failed %s: %v\n", f.ExternalID, f.Err)
	}
	return nil
}
