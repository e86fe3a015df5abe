package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/citahq/cita/rag"
)

// DocumentWriter is what the cache benchmark needs of the index: documents to cite.
type DocumentWriter interface {
	ReplaceDocument(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (id, version int64, err error)
}

// CacheConfig is one answer-cache benchmark: Entries answers, each citing 3 to 5 indexed
// documents under a one-group scope, are stored, then looked up Lookups times at random.
type CacheConfig struct {
	Cache    rag.AnswerCache
	Index    DocumentWriter
	Embedder rag.Embedder
	Entries  int // default 500
	Lookups  int // default 2000
}

// CacheResult holds the answer cache's lookup latency; JSON keys are the ones `cita bench --json`
// prints under "cache".
type CacheResult struct {
	Entries int     `json:"entries"`
	Lookups int     `json:"lookups"`
	HitP50  float64 `json:"hit_p50_ms"`
	HitP95  float64 `json:"hit_p95_ms"`
	HitP99  float64 `json:"hit_p99_ms"`
	MissP95 float64 `json:"miss_p95_ms"` // a lookup under another scope: the key's index probe only
}

const cacheBenchDocs = 40

// RunCache measures answer cache hits (and misses under other scopes) against a real cache and
// index. It returns the first error of the index, the embedder or the cache, and an error when a
// stored entry is not found or an entry is served to another scope.
func RunCache(ctx context.Context, cfg CacheConfig) (*CacheResult, error) {
	if cfg.Entries <= 0 {
		cfg.Entries = 500
	}
	if cfg.Lookups <= 0 {
		cfg.Lookups = 2000
	}
	g := newCorpusGen(7)
	rng := rand.New(rand.NewPCG(7, 11))
	var cited []rag.Hit
	for d := range cacheBenchDocs {
		c := rag.Chunk{Heading: fmt.Sprintf("Política %d", d), Content: g.chunkText(g.topicOf(d))}
		vecs, err := cfg.Embedder.Embed(ctx, []string{c.Text()})
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		c.Embedding = vecs[0]
		group := fmt.Sprintf("group-%d", d%groupCount)
		id, version, err := cfg.Index.ReplaceDocument(ctx, rag.Document{Source: "bench-cache", ExternalID: fmt.Sprintf("cache-%d.md", d),
			Title: fmt.Sprintf("Política %d", d), Lang: "es", UpdatedAt: time.Now(), ContentHash: fmt.Sprint(d), Groups: []string{group}}, []rag.Chunk{c})
		if err != nil {
			return nil, err
		}
		cited = append(cited, rag.Hit{DocumentID: id, DocVersion: version, Title: c.Heading, Heading: c.Heading,
			Content: c.Content, Path: fmt.Sprintf("cache-%d.md", d), Owner: "Equipo de personas", Lang: "es", UpdatedAt: time.Now()})
	}
	type entry struct {
		key  rag.CacheKey
		text string
	}
	entries := make([]entry, cfg.Entries)
	for i := range entries {
		scope := rag.MustScope(fmt.Sprintf("group-%d", rng.IntN(groupCount)))
		ans := &rag.Answer{Lang: "es", Evidence: 0.9, Usage: rag.Usage{Model: "bench", PromptTokens: 1800, CompletionTokens: 160}}
		for n := range 3 + rng.IntN(3) {
			ans.Sources = append(ans.Sources, rag.Source{N: n + 1, Hit: cited[rng.IntN(len(cited))]})
			ans.Text += g.queryFrom(cited[0].Content) + fmt.Sprintf(" [%d]. ", n+1)
		}
		entries[i] = entry{key: rag.NewCacheKey(fmt.Sprintf("¿Pregunta sintética número %d?", i), scope, "es"), text: ans.Text}
		if err := cfg.Cache.Store(ctx, entries[i].key, ans); err != nil {
			return nil, err
		}
	}
	var hits, misses []time.Duration
	for i := range cfg.Lookups {
		e := entries[rng.IntN(len(entries))]
		t0 := time.Now()
		got, err := cfg.Cache.Lookup(ctx, e.key)
		took := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if got == nil || got.Text != e.text {
			return nil, fmt.Errorf("cache lookup %d: entry %q under scope %s not served as stored", i, e.key.Query, e.key.Scope)
		}
		hits = append(hits, took)
		if i%4 == 0 {
			other := e.key
			other.Scope = e.key.Scope + ",other-group"
			t0 = time.Now()
			got, err := cfg.Cache.Lookup(ctx, other)
			misses = append(misses, time.Since(t0))
			if err != nil {
				return nil, err
			}
			if got != nil {
				return nil, fmt.Errorf("cache served scope %s's entry to scope %s", e.key.Scope, other.Scope)
			}
		}
	}
	return &CacheResult{Entries: cfg.Entries, Lookups: len(hits), HitP50: pct(hits, 0.5), HitP95: pct(hits, 0.95),
		HitP99: pct(hits, 0.99), MissP95: pct(misses, 0.95)}, nil
}
