// Package pgstoretest gives tests a real pgstore.Store on a fresh, migrated PostgreSQL schema
// (internal/testdb), ready to index and search.
package pgstoretest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// Open opens a pool on a fresh, migrated schema (dropped, and the pool closed, when the test
// ends). It returns the pool and the schema's connection string, for a configuration file or
// another process. The pool logs nowhere. On failure it calls t.Fatal.
func Open(t testing.TB) (pool *pgxpool.Pool, connString string) {
	t.Helper()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(context.Background(), cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, cs
}

// New opens a pool on a fresh schema (see Open) and returns a store for the embedding model
// with its vector index in place. The store logs nowhere; its pool is store.Pool(). On failure
// it calls t.Fatal.
func New(t testing.TB, model rag.EmbedderInfo) *pgstore.Store {
	t.Helper()
	pool, _ := Open(t)
	return OnPool(t, pool, model)
}

// OnPool returns a store on pool for the embedding model, with its vector index in place. On
// failure it calls t.Fatal.
func OnPool(t testing.TB, pool *pgxpool.Pool, model rag.EmbedderInfo) *pgstore.Store {
	t.Helper()
	store, err := pgstore.New(pool, model, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("new store: %v", err)
	}
	if err := store.EnsureVectorIndex(context.Background()); err != nil {
		t.Fatalf("vector index: %v", err)
	}
	return store
}

// Vectorizer embeds one text locally, as the built-in embedder (hashembed) does.
type Vectorizer interface {
	Vector(text string) []float32
}

// Put indexes doc with one chunk per text (headed by the title, embedded by emb), folds the
// statistics so full-text search sees it at once, and returns the document id. A zero
// UpdatedAt becomes a fixed date; an empty ContentHash, the external id. On failure it calls
// t.Fatal.
func Put(t testing.TB, store *pgstore.Store, emb Vectorizer, doc rag.Document, texts ...string) int64 {
	t.Helper()
	ctx := context.Background()
	if doc.UpdatedAt.IsZero() {
		doc.UpdatedAt = time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)
	}
	if doc.ContentHash == "" {
		doc.ContentHash = doc.ExternalID
	}
	chunks := make([]rag.Chunk, len(texts))
	for i, text := range texts {
		c := rag.Chunk{Heading: doc.Title, Content: text}
		c.Embedding = emb.Vector(c.Text())
		chunks[i] = c
	}
	id, _, err := store.ReplaceDocument(ctx, doc, chunks)
	if err != nil {
		t.Fatalf("index %s: %v", doc.ExternalID, err)
	}
	if _, err := store.CompactStats(ctx); err != nil {
		t.Fatalf("fold statistics: %v", err)
	}
	return id
}
