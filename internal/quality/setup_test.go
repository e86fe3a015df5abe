package quality_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
	"github.com/citahq/cita/rag/translate"
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

// translator starts the offline translator cita wires for cross-lingual search; the quality
// tests fail, never skip, without it.
func translator(t *testing.T) *translate.Apertium {
	t.Helper()
	tr, err := translate.NewApertium(translate.ApertiumOptions{})
	if err != nil {
		t.Fatalf("the quality tests need the offline translator for cross-lingual search: %v\n(run scripts/setup.sh, or apt-get install apertium apertium-eng-spa)", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// newIndex opens a store on a fresh schema; tr, when not nil, translates queries as cita does.
func newIndex(t *testing.T, tr rag.Translator) *index {
	t.Helper()
	emb := hashembed.New(0)
	store := pgstoretest.New(t, emb.Info())
	opts := rag.DefaultHybridOptions()
	opts.Translator = tr
	return &index{store: store, emb: emb, search: rag.NewHybrid(store, emb, opts), logger: slog.New(slog.DiscardHandler)}
}

// add indexes the set's corpus (skipping empty entries) readable by the group "eval".
func (ix *index) add(t *testing.T, ctx context.Context, ds *eval.Dataset) {
	t.Helper()
	docs, _ := ds.Documents()
	if _, err := evalindex.Documents(ctx, ix.store, ix.emb, ix.logger, ds.Name, docs, []string{"eval"}); err != nil {
		t.Fatal(err)
	}
}
