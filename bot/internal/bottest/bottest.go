// Package bottest gives the bot packages' tests a real PostgreSQL schema with a small indexed
// corpus, the real answering pipeline over it, and the bot store.
package bottest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// Env is a migrated schema with the corpus indexed.
type Env struct {
	Pool     *pgxpool.Pool
	Index    *pgstore.Store
	Bot      *pgbot.Store
	Pipeline *rag.Pipeline
	emb      *hashembed.Embedder
}

// Doc is one document of the test corpus.
type Doc struct {
	Path, Title string
	Groups      []string
	Chunks      []string
	Owner       string // who keeps it ("" none)
}

// Corpus is the default corpus: an "everyone" vacation policy and remote-work policy, and an
// "hr"-only salary document that shares words with them.
var Corpus = []Doc{
	{"vacation.md", "Vacation policy", []string{"everyone"}, []string{
		"Every employee gets 22 vacation days per year. Vacation requests need two weeks of notice in the people portal.",
		"Unused vacation days carry over to the next year, up to a maximum of five days.",
	}, ""},
	{"remote.md", "Remote work policy", []string{"everyone"}, []string{
		"Employees may work remotely up to three days per week with their manager's approval.",
		"Remote workers must use the company VPN and keep their laptop encrypted.",
	}, ""},
	{"salaries.md", "Salary bands", []string{"hr"}, []string{
		"Salary band B7 has a base salary of 5,440,000 per month. The Condor retention bonus applies to band B7 employees.",
		"Salary band reviews happen every year in March, with vacation days unaffected by the band.",
	}, ""},
}

// New migrates a fresh schema, indexes docs (Corpus when none) and wires the pipeline.
func New(t testing.TB, docs ...Doc) *Env {
	t.Helper()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	index, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := index.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	e := &Env{Pool: pool, Index: index, Bot: pgbot.New(pool), emb: emb}
	if docs == nil {
		docs = Corpus
	}
	for _, d := range docs {
		e.Add(t, d)
	}
	e.Pipeline = e.PipelineWith(rag.PipelineOptions{})
	return e
}

// PipelineWith returns another pipeline over the same index (with an answer cache, say).
func (e *Env) PipelineWith(opts rag.PipelineOptions) *rag.Pipeline {
	return rag.NewPipeline(rag.NewHybrid(e.Index, e.emb, rag.DefaultHybridOptions()), rag.Extractive{}, nil, opts)
}

// Embedder returns the index's embedder, for pipelines with another composer.
func (e *Env) Embedder() rag.Embedder { return e.emb }

// CachedPipeline returns a pipeline with the PostgreSQL answer cache.
func (e *Env) CachedPipeline() *rag.Pipeline {
	return e.PipelineWith(rag.PipelineOptions{Cache: pgstore.NewCache(e.Pool, pgstore.CacheOptions{Variant: "extractive"}, slog.New(slog.DiscardHandler))})
}

// Add indexes one document and returns its id.
func (e *Env) Add(t testing.TB, d Doc) int64 {
	t.Helper()
	chunks := make([]rag.Chunk, len(d.Chunks))
	for i, text := range d.Chunks {
		c := rag.Chunk{Heading: d.Title, Section: "", Content: text}
		c.Embedding = e.emb.Vector(c.Text())
		chunks[i] = c
	}
	id, _, err := e.Index.ReplaceDocument(context.Background(), rag.Document{
		Source: "test", ExternalID: d.Path, Title: d.Title, Lang: "en", URL: "https://docs.example.com/" + d.Path,
		UpdatedAt: time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC), ContentHash: d.Path + "-hash", Groups: d.Groups, Owner: d.Owner,
	}, chunks)
	if err != nil {
		t.Fatalf("index %s: %v", d.Path, err)
	}
	return id
}
