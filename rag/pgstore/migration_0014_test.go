package pgstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/citahq/cita/rag"
)

// TestMigration0014DownAndUp undoes migration 0014 on an index with documents (one withheld)
// and answers, checks what it added is gone and what 0009 and 0013 added is not, and applies it
// again: the per-class statistics are rebuilt from the chunks, the withheld document counts in
// none, and the checks hold.
func TestMigration0014DownAndUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.doc(t, "t", "a.md", "Guía", "es", []string{"everyone", "alice@example.com"}, "Las vacaciones del equipo canario.")
	b.doc(t, "t", "w.md", "Retenido", "es", []string{"everyone"}, "Las vacaciones secretas del ocelote.")
	if err := b.store.WithholdDocument(ctx, "t", "w.md", "no access group"); err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(b.store.Pool())
	defer db.Close()
	provider := migrationProvider(t, b.store.Pool())
	if _, err := provider.DownTo(ctx, 13); err != nil {
		t.Fatalf("down from 0014: %v", err)
	}
	for _, table := range []string{"access_classes", "class_lexeme_stats", "class_corpus_stats", "directory_members", "directory_state"} {
		if exists(t, db, `SELECT to_regclass($1) IS NOT NULL`, table) {
			t.Errorf("table %s survived the down migration", table)
		}
	}
	column := func(name string) bool {
		return exists(t, db, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'bot_answers' AND column_name = $1)`, name)
	}
	if column("redaction_reason") {
		t.Error("bot_answers.redaction_reason survived the down migration")
	}
	if !column("redacted_at") {
		t.Error("the down migration dropped 0009's bot_answers.redacted_at")
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	checkClassStats(t, b, "after down and up")
	hits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "vacaciones"}, rag.MustScope("alice@example.com"), 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search after down and up: %v, %v", hits, err)
	}
	var counted int64
	if err := b.store.Pool().QueryRow(ctx, `SELECT coalesce(sum(chunks), 0) FROM class_corpus_stats WHERE kind = 't'`).Scan(&counted); err != nil || counted != 1 {
		t.Fatalf("after down and up, the classes count %d chunks (%v); want 1, the withheld document's in none", counted, err)
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
