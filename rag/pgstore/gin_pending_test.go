package pgstore_test

import (
	"context"
	"fmt"
	"testing"
)

// TestCompactionFlushesTheGINPendingLists: after an indexing run's compaction, no chunk GIN
// index keeps a pending list for searches to read whole (gin_clean_pending_list reports the
// pages it had to flush: none are left).
func TestCompactionFlushesTheGINPendingLists(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 30 {
		b.doc(t, "t", fmt.Sprintf("doc-%d.md", i), fmt.Sprintf("Política %d", i), "es", []string{"everyone", fmt.Sprintf("team-%d", i%4)},
			fmt.Sprintf("Las vacaciones del equipo %d se piden con dos semanas de antelación al responsable directo.", i), "Vacaciones")
	}
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	var left int64
	if err := b.store.Pool().QueryRow(ctx, `SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = 'chunks'::regclass AND a.amname = 'gin'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d pending-list pages left in the chunks' GIN indexes after compaction", left)
	}
}
