package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// DocumentSections implements rag.DocumentReader: the chunks of document id that scope may
// read, in document order, filtered by the chunks' groups and validity (cita_citable) in SQL. A
// document that does not exist, one the scope may not read and one not citable for the scope's
// period all return rag.ErrDocumentNotFound.
func (s *Store) DocumentSections(ctx context.Context, id int64, scope rag.Scope) ([]rag.Hit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	from, until := periodArgs(scope)
	rows, err := s.pool.Query(ctx, hitSelect+`
		WHERE c.document_id = $1 AND c.groups && $2::text[] AND d.groups && $2::text[] AND cita_citable(c.valid, $3, $4)
		ORDER BY c.position`, id, scope.Groups(), from, until)
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
