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
	rows, err := s.pool.Query(ctx, `
		SELECT c.id, c.document_id, d.version, d.title, c.section, c.locator, c.content,
			d.external_id, d.url, d.owner, d.lang, d.updated_at
		FROM chunks c JOIN documents d ON d.id = c.document_id
		WHERE c.document_id = $1 AND c.groups && $2::text[] AND d.groups && $2::text[]
		ORDER BY c.position`, id, scope.Groups())
	if err != nil {
		return nil, fmt.Errorf("read document %d: %w", id, err)
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (rag.Hit, error) {
		var h rag.Hit
		err := row.Scan(&h.ChunkID, &h.DocumentID, &h.DocVersion, &h.Title, &h.Section, &h.Locator, &h.Content,
			&h.Path, &h.URL, &h.Owner, &h.Lang, &h.UpdatedAt)
		h.Heading = h.Title
		if h.Section != "" {
			h.Heading += " > " + h.Section
		}
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("read document %d: %w", id, err)
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("read document %d: %w", id, rag.ErrDocumentNotFound)
	}
	return hits, nil
}
