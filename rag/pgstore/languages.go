package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// ReadableLanguages returns the languages ("es", "en", "simple") of the documents the scope may
// read: the hybrid searcher translates a question only when some readable document is in the
// other language.
func (s *Store) ReadableLanguages(ctx context.Context, scope rag.Scope) ([]string, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT lang FROM documents WHERE groups && $1::text[]`, scope.Groups())
	if err != nil {
		return nil, fmt.Errorf("readable languages: %w", err)
	}
	langs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("readable languages: %w", err)
	}
	return langs, nil
}

// ReadableLanguages implements the hybrid searcher's language check on the primary (see
// Store.ReadableLanguages).
func (rs *RoutedStore) ReadableLanguages(ctx context.Context, scope rag.Scope) ([]string, error) {
	return rs.store.ReadableLanguages(ctx, scope)
}
