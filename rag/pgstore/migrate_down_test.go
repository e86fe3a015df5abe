package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// TestMigration0013GoesDownAndUpAgain takes a schema holding a withheld document, a held-back
// run and an interrupted bulk load down to migration 0012 and up again.
func TestMigration0013GoesDownAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	pool := b.store.Pool()
	// An interrupted bulk load: the documents below are missing from the statistics.
	if _, err := pool.Exec(ctx, `INSERT INTO bulk_load (model, dimension) VALUES ('m', 8)`); err != nil {
		t.Fatal(err)
	}
	b.doc(t, "s", "kept.md", "Kept", "es", []string{"everyone"}, "El tapir duerme de día.")
	b.doc(t, "s", "hidden.md", "Hidden", "es", []string{"hr"}, "La nómina usa la banda quetzal.")
	if err := b.store.WithholdDocument(ctx, "s", "hidden.md", "no access group"); err != nil {
		t.Fatal(err)
	}

	provider := migrationProvider(t, pool)
	if _, err := provider.DownTo(ctx, 12); err != nil {
		t.Fatalf("down to 0012: %v", err)
	}
	var docs, df int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM documents),
		(SELECT coalesce(sum(df), 0) FROM lexeme_stats WHERE lexeme = ANY(tsvector_to_array(to_tsvector('spanish', 'tapir'))))`).Scan(&docs, &df); err != nil {
		t.Fatal(err)
	}
	if docs != 1 || df != 1 {
		t.Fatalf("after going down: %d documents (want the withheld one gone), tapir df %d (want rebuilt statistics)", docs, df)
	}
	if _, err := pool.Exec(ctx, `UPDATE chunks SET groups = '{}'`); err == nil {
		t.Fatal("after going down, chunks accept an empty group list")
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
}

// TestMigration0007DownRestoresTheTriggers checks that rolling 0007 back leaves the statistics
// triggers as 0001 made them: counting every insert, with no bulk-load switch left behind.
func TestMigration0007DownRestoresTheTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := pgstoretest.Open(t)
	provider := migrationProvider(t, pool)
	if _, err := provider.DownTo(ctx, 6); err != nil {
		t.Fatalf("down to 0006: %v", err)
	}
	for _, fn := range []string{"chunks_stats_insert", "chunks_stats_delete"} {
		var src string
		if err := pool.QueryRow(ctx, `SELECT prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE p.proname = $1 AND n.nspname = current_schema()`, fn).Scan(&src); err != nil {
			t.Fatalf("%s after going down: %v", fn, err)
		}
		if strings.Contains(src, "bulk") {
			t.Errorf("%s still knows of bulk loads after 0007 went down:\n%s", fn, src)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = 'cita_rebuild_stats' AND n.nspname = current_schema()`).Scan(&n); err != nil || n != 0 {
		t.Errorf("cita_rebuild_stats left behind (%d, %v)", n, err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
}
