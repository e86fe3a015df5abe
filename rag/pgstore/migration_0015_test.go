package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/migrations"
	"github.com/citahq/cita/rag"
)

// TestMigration0015DownAndUp undoes migration 0015 on an index holding a superseded document,
// checks its columns, function and table are gone, and applies it again: documents come back
// current (no validity), and search works under cita_citable.
func TestMigration0015DownAndUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.docValid(t, "old.md", "Old", "The ocelot allowance was 45 euros.", rag.Validity{Until: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	db := stdlib.OpenDBFromPool(b.store.Pool())
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.DownTo(ctx, 14); err != nil {
		t.Fatalf("down from 0015: %v", err)
	}
	if exists(t, db, `SELECT to_regclass('drive_channels') IS NOT NULL`) {
		t.Error("drive_channels survived the down migration")
	}
	if exists(t, db, `SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = 'cita_citable' AND n.nspname = current_schema())`) {
		t.Error("cita_citable survived the down migration")
	}
	if exists(t, db, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'chunks' AND column_name = 'valid')`) {
		t.Error("chunks.valid survived the down migration")
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "ocelot allowance"}, rag.MustScope("everyone"), 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("after down and up the document (its validity dropped) is current again: %v, %v", hits, err)
	}
}
