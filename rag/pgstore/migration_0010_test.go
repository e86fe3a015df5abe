package pgstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/migrations"
	"github.com/citahq/cita/rag"
)

// TestMigration0010DownAndUp undoes migration 0010 on an index with documents and answers,
// checks what it added is gone, and applies it again: the per-class statistics are rebuilt from
// the chunks, and the checks hold.
func TestMigration0010DownAndUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.doc(t, "t", "a.md", "Guía", "es", []string{"everyone", "alice@example.com"}, "Las vacaciones del equipo canario.")
	db := stdlib.OpenDBFromPool(b.store.Pool())
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.DownTo(ctx, 9); err != nil {
		t.Fatalf("down from 0010: %v", err)
	}
	for _, table := range []string{"access_classes", "class_lexeme_stats", "class_corpus_stats", "directory_members", "directory_state"} {
		if exists(t, db, `SELECT to_regclass($1) IS NOT NULL`, table) {
			t.Errorf("table %s survived the down migration", table)
		}
	}
	if exists(t, db, `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'bot_answers' AND column_name = 'redacted')`) {
		t.Error("bot_answers.redacted survived the down migration")
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	checkClassStats(t, b, "after down and up")
	hits, _, err := b.store.SearchFTS(ctx, "vacaciones", rag.MustScope("alice@example.com"), 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search after down and up: %v, %v", hits, err)
	}
}

func exists(t *testing.T, db *sql.DB, query string, args ...any) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRow(query, args...).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}
