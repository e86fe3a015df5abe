package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// DocumentSections implements rag.DocumentReader: the chunks of document id that scope may
// read, in document order, filtered by the chunks' groups in SQL. A document that does not exist
// and one the scope may not read both return rag.ErrDocumentNotFound.
func (s *Store) DocumentSections(ctx context.Context, id int64, scope rag.Scope) ([]rag.Hit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	rows, err := s.pool.Query(ctx, hitSelect+`
		WHERE c.document_id = $1 AND c.groups && $2::text[] AND d.groups && $2::text[]
		ORDER BY c.position`, id, scope.Groups())
	if err != nil {
		return nil, fmt.Errorf("read document %d: %w", id, err)
	}
	hits, err := pgx.CollectRows(rows, scanHit)
	if err != nil {
		return nil, fmt.Errorf("read document %d: %w", id, err)
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("read document %d: %w", id, rag.ErrDocumentNotFound)
	}
	return hits, nil
}
