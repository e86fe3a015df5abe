package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// TestRebuildAllStatsMatchesTheTwoRebuilds checks migration 0018's one-pass rebuild against
// the global and per-class rebuilds it replaces at the end of a bulk load, on documents in
// several access classes, one of them withheld (its chunks belong to no class but count in the
// global statistics), and with pending deltas that the rebuild must clear.
func TestRebuildAllStatsMatchesTheTwoRebuilds(t *testing.T) {
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
	b.doc(t, "s", "a.md", "Vacaciones", "es", []string{"everyone"}, "Cada empleado tiene quince días de vacaciones.", "Las vacaciones se piden antes.")
	b.doc(t, "s", "b.md", "Payments", "en", []string{"finance", "board"}, "ERR_4402 means the payment gateway timed out.")
	b.doc(t, "s", "c.md", "Board", "en", []string{"board"}, "The board meets every quarter; payment approvals above the limit go to the board.")
	b.doc(t, "s", "d.md", "Secret", "es", []string{"hr"}, "El tapir de la oficina duerme de día.")
	if err := store.WithholdDocument(ctx, "s", "d.md", "permissions could not be read"); err != nil {
		t.Fatal(err)
	}
	b.doc(t, "s", "e.md", "Later", "en", []string{"everyone"}, "A pending delta: vacation requests go through the portal.")

	snapshot := func() string {
		t.Helper()
		return dump(t, pool, `SELECT lexeme || ' ' || df FROM lexeme_stats ORDER BY 1`) +
			dump(t, pool, `SELECT a.groups::text || ' ' || s.lexeme || ' ' || s.df FROM class_lexeme_stats s JOIN access_classes a ON a.id = s.class_id ORDER BY 1`) +
			dump(t, pool, `SELECT kind::text || ' ' || chunks || ' ' || total_len FROM corpus_stats ORDER BY 1`) +
			dump(t, pool, `SELECT a.groups::text || ' ' || s.kind::text || ' ' || s.chunks || ' ' || s.total_len FROM class_corpus_stats s JOIN access_classes a ON a.id = s.class_id ORDER BY 1`) +
			dump(t, pool, `SELECT 'pending ' || (SELECT count(*) FROM lexeme_delta) + (SELECT count(*) FROM class_lexeme_delta) + (SELECT count(*) FROM corpus_delta) + (SELECT count(*) FROM class_corpus_delta)`)
	}
	if _, err := pool.Exec(ctx, `SELECT cita_rebuild_stats(); SELECT cita_rebuild_class_stats()`); err != nil {
		t.Fatal(err)
	}
	want := snapshot()
	b.doc(t, "s", "f.md", "Later", "en", []string{"everyone"}, "Another pending delta about the tapir.")
	if _, err := pool.Exec(ctx, `DELETE FROM chunks WHERE document_id = (SELECT id FROM documents WHERE external_id = 'f.md')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT cita_rebuild_all_stats()`); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(); got != want {
		t.Errorf("cita_rebuild_all_stats:\n%s\nthe two rebuilds:\n%s", got, want)
	}
}

func dump(t *testing.T, pool *pgxpool.Pool, sql string) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := ""
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintln(line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChunkVectorsStayInTheRow checks migration 0018's storage: the stemmed vector, which the
// full-text arm reads for every candidate, is kept in the row (MAIN), not moved out to TOAST.
func TestChunkVectorsStayInTheRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var storage string
	if err := pool.QueryRow(ctx, `SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'tsv'`).Scan(&storage); err != nil {
		t.Fatal(err)
	}
	if storage != "m" {
		t.Errorf("chunks.tsv storage %q, want m (MAIN: in the row)", storage)
	}
}
