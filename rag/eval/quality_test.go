package eval_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/translate"
	"github.com/citahq/cita/sync/indexer"
)

// TestRetrievalQuality guards the README's figures: hybrid nDCG@10 on the XQuAD sets stays at or
// above the targets and never below the better of its two arms. Search runs as cita wires it:
// with the offline translator, which the cross-lingual sets (Spanish questions over English
// passages and the reverse) need.
func TestRetrievalQuality(t *testing.T) {
	shared := os.Getenv("CITA_SHARED_DIR")
	if shared == "" {
		t.Skip("CITA_SHARED_DIR is unset: the quality test needs ../shared/eval (CI sets it)")
	}
	tr, err := translate.NewApertium(translate.ApertiumOptions{})
	if err != nil {
		t.Fatalf("the quality test needs the offline translator for cross-lingual search: %v\n(run scripts/setup.sh, or apt-get install apertium apertium-eng-spa)", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	targets := map[string]float64{"xquad-es": 0.95, "xquad-en": 0.96, "xquad-es2en": 0.90, "xquad-en2es": 0.90}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ds, err := eval.Load(filepath.Join(shared, "eval", name))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			logger := slog.New(slog.DiscardHandler)
			cs, schema := testdb.Schema(t)
			pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			emb := hashembed.New(0)
			store, err := pgstore.New(pool, emb.Info(), logger)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.EnsureVectorIndex(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err := indexer.New(store, emb, indexer.Options{}, logger).Sync(ctx, "eval", eval.Items(ds, []string{"eval"}), true)
			if err != nil || len(rep.Failed) > 0 {
				t.Fatalf("index: %v %v", err, rep.Failed)
			}
			opts := rag.DefaultHybridOptions()
			opts.Translator = tr
			search := rag.NewHybrid(store, emb, opts)
			got := map[string]float64{}
			for _, mode := range []string{"fts", "vector", "hybrid"} {
				m, err := eval.Run(ctx, ds, search, rag.MustScope("eval"), mode, nil)
				if err != nil {
					t.Fatal(err)
				}
				got[mode] = m.NDCG10
				t.Logf("%s %-6s nDCG@10 %.4f Recall@10 %.4f MRR@10 %.4f Recall@100 %.4f", name, mode, m.NDCG10, m.Recall10, m.MRR10, m.Recall100)
			}
			if got["hybrid"] < target {
				t.Errorf("hybrid nDCG@10 %.4f < target %.2f", got["hybrid"], target)
			}
			if best := max(got["fts"], got["vector"]); got["hybrid"] < best {
				t.Errorf("hybrid nDCG@10 %.4f is below the better arm (%.4f)", got["hybrid"], best)
			}
		})
	}
}
