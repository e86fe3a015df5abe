package pgstore_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/migrations"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// TestMigration0013GoesDownAndUpAgain takes a schema holding a withheld document, a held-back
// run and an interrupted bulk load down to migration 0012 and up again.
func TestMigration0013GoesDownAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	b := &bundle{store: store, emb: emb}
	// An interrupted bulk load: the documents below are missing from the statistics.
	if _, err := pool.Exec(ctx, `INSERT INTO bulk_load (model, dimension) VALUES ('m', 8)`); err != nil {
		t.Fatal(err)
	}
	b.doc(t, "s", "kept.md", "Kept", "es", []string{"everyone"}, "El tapir duerme de día.")
	b.doc(t, "s", "hidden.md", "Hidden", "es", []string{"hr"}, "La nómina usa la banda quetzal.")
	if err := b.store.WithholdDocument(ctx, "s", "hidden.md", "no access group"); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("pgx", cs)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
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
