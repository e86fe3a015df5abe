package quality_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
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
	emb := hashembed.New(0)
	store := pgstoretest.New(t, emb.Info())
	return &index{store: store, emb: emb, search: rag.NewHybrid(store, emb, rag.DefaultHybridOptions()), logger: slog.New(slog.DiscardHandler)}
}
