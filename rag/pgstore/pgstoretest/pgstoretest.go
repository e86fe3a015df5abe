// Package pgstoretest gives tests a real pgstore.Store on a fresh, migrated PostgreSQL schema
// (internal/testdb), ready to index and search.
package pgstoretest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// New opens a pool on a fresh schema (dropped, and the pool closed, when the test ends) and
// returns a store for the embedding model with its vector index in place. The store logs
// nowhere; its pool is store.Pool(). On failure it calls t.Fatal.
func New(t testing.TB, model rag.EmbedderInfo) *pgstore.Store {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(pool.Close)
	store, err := pgstore.New(pool, model, logger)
	if err != nil {
		t.Fatalf("new store: %v", err)
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		t.Fatalf("vector index: %v", err)
	}
	return store
}
