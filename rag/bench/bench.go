package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/rag"
)

// Store is what the benchmark needs of the index.
type Store interface {
	ReplaceDocument(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (id, version int64, err error)
	SearchVector(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error)
	SearchVectorExact(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error)
	SearchFTS(ctx context.Context, query rag.FTSQuery, scope rag.Scope, k int) ([]rag.ArmHit, []string, error)
	CompactStats(ctx context.Context) (int64, error)
	BeginBulkLoad(ctx context.Context) (end func(context.Context) error, err error)
	Distances(ctx context.Context, vec []float32, ids []int64) (map[int64]float64, error)
}

// Config is one benchmark run over an empty namespace.
type Config struct {
	Chunks  int
	Queries int
	// QuestionWords fixes the questions' length; 0 draws each from 6-25 words.
	QuestionWords int
	Store         Store
	Embedder      rag.Embedder
	Search        rag.Searcher
	Progress      func(string)
	// Writers is how many documents are embedded and written at once (default 4).
	Writers int
	// Explain, when set, is called after the timings with the questions at the hybrid median
	// and 95th percentile (its label says which), to show where their time goes.
	Explain func(ctx context.Context, label string, q Query) error
}

// Result holds the figures of one corpus size; JSON keys are the ones `cita bench --json` prints.
type Result struct {
	Chunks          int     `json:"chunks"`
	IndexChunksPerS float64 `json:"index_chunks_per_s"`
	// IncrementalChunksPerS is the rate of adding 2% more with the vector index in place.
	IncrementalChunksPerS float64 `json:"incremental_chunks_per_s"`
	Latencies
	FilterShare float64 `json:"filter_share"`
}

const chunksPerDoc = 20

type sample struct {
	text  string
	group string
}

// loader writes synthetic documents with several writers at once.
type loader struct {
	cfg      Config
	gen      *corpusGen
	writers  int
	progress func(string)
	// samples collects the chunks queries are drawn from (every sampleEvery-th chunk).
	samples     []sample
	sampleEvery int
}

// newLoader returns a loader for cfg that samples about cfg.Queries chunks, with 4 writers and no
// progress reports unless cfg sets them.
func newLoader(cfg Config) *loader {
	progress := cfg.Progress
	if progress == nil {
		progress = func(string) {}
	}
	writers := cfg.Writers
	if writers <= 0 {
		writers = 4
	}
	return &loader{cfg: cfg, gen: newCorpusGen(uint64(cfg.Chunks)), writers: writers, progress: progress,
		sampleEvery: max(1, cfg.Chunks/max(cfg.Queries, 1))}
}

// load generates documents [from, to) (20 chunks each, the last one cut at maxChunks), embeds
// and writes them. It returns the number of chunks.
func (l *loader) load(ctx context.Context, from, to, maxChunks int) (int, error) {
	type job struct {
		doc    rag.Document
		chunks []rag.Chunk
	}
	jobs := make(chan job, l.writers*2)
	var done atomic.Int64
	total := 0
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { // generate: sequential, so the corpus is the same on every run
		defer close(jobs)
		for d := from; d < to && d*chunksPerDoc < maxChunks; d++ {
			n := min(chunksPerDoc, maxChunks-d*chunksPerDoc)
			group := fmt.Sprintf("group-%d", d%groupCount)
			chunks := make([]rag.Chunk, n)
			for i := range chunks {
				chunks[i] = rag.Chunk{Heading: fmt.Sprintf("Documento %d > Sección %d", d, i), Section: fmt.Sprintf("Sección %d", i), Content: l.gen.chunkText(l.gen.topicOf(d))}
				if (d*chunksPerDoc+i)%l.sampleEvery == 0 && len(l.samples) < l.cfg.Queries {
					l.samples = append(l.samples, sample{text: chunks[i].Content, group: group})
				}
			}
			total += n
			doc := rag.Document{
				Source: "bench", ExternalID: fmt.Sprintf("doc-%d.md", d), Title: fmt.Sprintf("Documento %d", d), Lang: "es",
				UpdatedAt: time.Now(), ContentHash: fmt.Sprint(d), Groups: []string{group},
			}
			select {
			case jobs <- job{doc: doc, chunks: chunks}:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	step := int64(max(1, l.cfg.Chunks/10))
	for w := 0; w < l.writers; w++ {
		g.Go(func() error { // embed and write: one transaction per document, several at once
			for j := range jobs {
				texts := make([]string, len(j.chunks))
				for i, c := range j.chunks {
					texts[i] = c.Text()
				}
				vecs, err := l.cfg.Embedder.Embed(gctx, texts)
				if err != nil {
					return fmt.Errorf("embed: %w", err)
				}
				for i := range j.chunks {
					j.chunks[i].Embedding = vecs[i]
				}
				if _, _, err := l.cfg.Store.ReplaceDocument(gctx, j.doc, j.chunks); err != nil {
					return err
				}
				n := done.Add(int64(len(j.chunks)))
				if n/step != (n-int64(len(j.chunks)))/step {
					l.progress(fmt.Sprintf("indexed %d chunks", n))
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return total, err
}

// Run indexes cfg.Chunks synthetic chunks and measures retrieval. The first load is a bulk load
// (the vector index is built once at the end, as the indexer does for a first index); then 2%
// more chunks are added with the index in place, the steady state of a sync. It returns the
// first error of the store or the embedder.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	l := newLoader(cfg)
	docs := (cfg.Chunks + chunksPerDoc - 1) / chunksPerDoc
	res := &Result{Chunks: cfg.Chunks, FilterShare: 1.0 / groupCount}

	start := time.Now()
	end, err := cfg.Store.BeginBulkLoad(ctx)
	if err != nil {
		return nil, err
	}
	if end == nil {
		return nil, errors.New("bench: the namespace is not empty, or another process is bulk loading it")
	}
	if _, err := l.load(ctx, 0, docs, cfg.Chunks); err != nil {
		_ = end(context.WithoutCancel(ctx))
		return nil, err
	}
	l.progress("building the vector index and the term statistics")
	if err := end(ctx); err != nil {
		return nil, err
	}
	res.IndexChunksPerS = float64(cfg.Chunks) / time.Since(start).Seconds()

	extraDocs := max(10, docs/50)
	start = time.Now()
	n, err := l.load(ctx, docs, docs+extraDocs, cfg.Chunks+extraDocs*chunksPerDoc)
	if err != nil {
		return nil, err
	}
	if _, err := cfg.Store.CompactStats(ctx); err != nil {
		return nil, err
	}
	res.IncrementalChunksPerS = float64(n) / time.Since(start).Seconds()
	res.Chunks += n
	l.progress(fmt.Sprintf("indexed at %.0f chunks/s (bulk), %.0f chunks/s (incremental); querying", res.IndexChunksPerS, res.IncrementalChunksPerS))
	questions := make([]Query, len(l.samples))
	for i, s := range l.samples {
		lang := "es"
		if i%2 == 1 {
			lang = "en"
		}
		questions[i] = Query{Text: l.gen.questionFrom(s.text, l.gen.questionLength(cfg.QuestionWords), lang), Group: s.group}
	}
	lat, err := measure(ctx, cfg.Store, cfg.Embedder, cfg.Search, questions, true)
	if err != nil {
		return nil, err
	}
	res.Latencies = *lat
	if cfg.Explain != nil && len(questions) > 0 {
		for _, p := range []struct {
			label string
			at    float64
		}{{"hybrid p50", 0.5}, {"hybrid p95", 0.95}} {
			i := lat.atPercentile(p.at)
			if err := cfg.Explain(ctx, fmt.Sprintf("%s question (%.1f ms)", p.label, float64(lat.hybrid[i].Microseconds())/1000), questions[i]); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// recallWithTies is the share of the exact top-k that the ANN result matches, where an ANN hit
// counts when its full-precision distance is within the exact k-th distance (plus a rounding
// margin): short queries leave thousands of chunks at nearly the same distance, and which of
// those tied chunks fill the last places is arbitrary, not a miss.
func recallWithTies(ann, exact []rag.ArmHit, dist map[int64]float64) float64 {
	if len(exact) == 0 {
		return 1
	}
	kth := 1 - exact[len(exact)-1].Score // Score is 1 - distance
	got := 0
	for _, h := range ann {
		if d, ok := dist[h.ChunkID]; ok && d <= kth+1e-4 {
			got++
		}
	}
	return float64(min(got, len(exact))) / float64(len(exact))
}

func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := max(0, min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1))
	return float64(s[i].Microseconds()) / 1000
}
