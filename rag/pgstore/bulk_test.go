package pgstore_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// TestBulkLoadStateIsShared runs a bulk load in one "process" and looks at it from another
// (a second pool on the same schema): the other cannot start a second bulk load, does not take
// the running one for a crashed one, and leaves the vector index to it; the load's end builds
// the index, counts the other's rows in the statistics and clears the state.
func TestBulkLoadStateIsShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	open := func() *bundle {
		pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		emb := hashembed.New(0)
		store, err := pgstore.New(pool, emb.Info(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return &bundle{store: store, emb: emb}
	}
	loader, other := open(), open()
	if err := loader.store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	end, err := loader.store.BeginBulkLoad(ctx)
	if err != nil || end == nil {
		t.Fatalf("first bulk load did not start: %v", err)
	}
	if hnsw(t, loader) != 0 {
		t.Fatal("the bulk load kept the vector index")
	}
	if end2, err := other.store.BeginBulkLoad(ctx); err != nil || end2 != nil {
		t.Fatalf("a second bulk load started while the first runs (err %v)", err)
	}
	if recovered, err := other.store.RecoverBulkLoad(ctx); err != nil || recovered {
		t.Fatalf("a running bulk load was taken for a crashed one (recovered %v, err %v)", recovered, err)
	}
	if err := other.store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if hnsw(t, loader) != 0 {
		t.Fatal("another process built the vector index in the middle of the bulk load")
	}
	loader.doc(t, "s", "a", "Uno", "es", []string{"everyone"}, "El ornitorrinco vive en el río.")
	other.doc(t, "s", "b", "Dos", "es", []string{"everyone"}, "El ornitorrinco pone huevos.")
	if err := end(ctx); err != nil {
		t.Fatal(err)
	}
	if hnsw(t, loader) != 1 {
		t.Fatal("the end of the bulk load did not build the vector index")
	}
	var rows, df int
	if err := loader.store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM bulk_load),
		(SELECT coalesce(sum(df), 0) FROM (SELECT df FROM lexeme_stats WHERE lexeme = 'ornitorrinc' UNION ALL SELECT df FROM lexeme_delta WHERE lexeme = 'ornitorrinc') x)`).Scan(&rows, &df); err != nil {
		t.Fatal(err)
	}
	if rows != 0 || df != 2 {
		t.Fatalf("after the load: %d state rows, document frequency %d (want 0 and 2)", rows, df)
	}
	if end3, err := other.store.BeginBulkLoad(ctx); err != nil || end3 != nil {
		t.Fatalf("a bulk load started on an index that holds vectors (err %v)", err)
	}
	hits, err := other.store.SearchVector(ctx, other.emb.Vector("ornitorrinco"), rag.MustScope("everyone"), 5)
	if err != nil || len(hits) != 2 {
		t.Fatalf("vector search after the load: %d hits, %v", len(hits), err)
	}
}

func hnsw(t *testing.T, b *bundle) int {
	t.Helper()
	var n int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'hnsw' AND c.relnamespace = current_schema()::regnamespace`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
