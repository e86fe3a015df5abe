package bench

import (
	"context"
	"fmt"
)

// Query is a benchmark query: words of an indexed chunk, and the one group that may read it.
type Query struct {
	Text  string
	Group string
}

// Load indexes cfg.Chunks synthetic chunks as Run's first load does (a bulk load, the vector
// index built at the end) and returns cfg.Queries queries drawn from them, for benchmarks of
// other front ends (the MCP server). cfg.Search is not used. It returns the first error of the
// store or the embedder.
func Load(ctx context.Context, cfg Config) ([]Query, error) {
	progress := cfg.Progress
	if progress == nil {
		progress = func(string) {}
	}
	writers := cfg.Writers
	if writers <= 0 {
		writers = 4
	}
	l := &loader{cfg: cfg, gen: newCorpusGen(uint64(cfg.Chunks)), writers: writers, progress: progress,
		sampleEvery: max(1, cfg.Chunks/max(cfg.Queries, 1))}
	end, err := cfg.Store.BeginBulkLoad(ctx)
	if err != nil {
		return nil, err
	}
	docs := (cfg.Chunks + chunksPerDoc - 1) / chunksPerDoc
	if _, err := l.load(ctx, 0, docs, cfg.Chunks); err != nil {
		return nil, err
	}
	progress("building the vector index and the term statistics")
	if end != nil {
		if err := end(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]Query, len(l.samples))
	for i, s := range l.samples {
		out[i] = Query{Text: l.gen.queryFrom(s.text), Group: s.group}
	}
	return out, nil
}

// Groups returns the access groups of the synthetic corpus: each reads about a tenth of it.
func Groups() []string {
	out := make([]string, groupCount)
	for i := range out {
		out[i] = fmt.Sprintf("group-%d", i)
	}
	return out
}
