package quality_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// sharedDir returns $CITA_SHARED_DIR/rel, skipping the test when the variable is unset.
func sharedDir(t *testing.T, rel string) string {
	t.Helper()
	shared := os.Getenv("CITA_SHARED_DIR")
	if shared == "" {
		t.Skip("CITA_SHARED_DIR is unset: the quality tests need ../shared/eval (CI sets it)")
	}
	return filepath.Join(shared, rel)
}

// index is a store on a fresh schema with the built-in embedder.
type index struct {
	store  *pgstore.Store
	emb    *hashembed.Embedder
	search *rag.Hybrid
	logger *slog.Logger
}

func newIndex(t *testing.T) *index {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	return &index{store: store, emb: emb, search: rag.NewHybrid(store, emb, rag.DefaultHybridOptions()), logger: logger}
}
