package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/citahq/cita/rag"
)

// TestDatabaseRefusesInvalidGroups is part of the regression test of issue 12, finding 7: the
// CHECK on groups only counted them, so a writer bypassing the store could store "a,b".
func TestDatabaseRefusesInvalidGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for _, groups := range [][]string{{"a,b"}, {"everyone", "h r"}, {"Everyone"}, {strings.Repeat("x", 257)}, {""}} {
		_, err := b.store.Pool().Exec(ctx, `INSERT INTO documents (source, external_id, title, updated_at, content_hash, groups)
			VALUES ('raw', $1, 't', now(), 'h', $2)`, fmt.Sprint(groups), groups)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23514" {
			t.Errorf("documents with groups %q: %v; want a check violation", groups, err)
		}
	}
	if _, err := b.store.Pool().Exec(ctx, `INSERT INTO documents (source, external_id, title, updated_at, content_hash, groups)
		VALUES ('raw', 'ok', 't', now(), 'h', $1)`, []string{"alice@example.com", "domain:example.com", "o'brien@x.io", strings.Repeat("y", 256)}); err != nil {
		t.Errorf("valid groups refused: %v", err)
	}
	if _, _, err := b.store.ReplaceDocument(ctx, rag.Document{Source: "t", ExternalID: "x", Title: "x", ContentHash: "h", Groups: []string{"a,b"}}, nil); !errors.Is(err, rag.ErrInvalidGroup) {
		t.Errorf("ReplaceDocument with an invalid group: %v; want ErrInvalidGroup", err)
	}
}
