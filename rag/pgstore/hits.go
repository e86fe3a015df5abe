package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// hitSelect selects, from chunks c joined to their documents d, the columns scanHit reads. Each
// query that uses it adds its own WHERE, which must hold the scope's filter.
const hitSelect = `
		SELECT c.id, c.document_id, d.version, d.title, c.section, c.locator, c.content,
			d.external_id, d.url, d.owner, d.lang, d.updated_at,
			d.valid_from, d.valid_until, d.superseded_by, d.superseded_on
		FROM chunks c JOIN documents d ON d.id = c.document_id`

// scanHit reads one row of hitSelect into a hit, its heading the title and the section.
func scanHit(row pgx.CollectableRow) (rag.Hit, error) {
	var h rag.Hit
	var from, until, supersededOn *time.Time
	err := row.Scan(&h.ChunkID, &h.DocumentID, &h.DocVersion, &h.Title, &h.Section, &h.Locator, &h.Content,
		&h.Path, &h.URL, &h.Owner, &h.Lang, &h.UpdatedAt, &from, &until, &h.Validity.SupersededBy, &supersededOn)
	h.Validity.From, h.Validity.Until, h.Validity.SupersededOn = deref(from), deref(until), deref(supersededOn)
	h.Validity.Superseded = supersededOn != nil
	h.Heading = h.Title
	if h.Section != "" {
		h.Heading += " > " + h.Section
	}
	return h, err
}

// LoadHits returns the chunks with the given ids that the scope may read, with their documents'
// fields, in one query. Ids the scope may not read, or not cite for its period (cita_citable),
// are silently absent: the filters are applied again here so that no path returns a chunk
// outside the scope or a superseded one as current.
func (s *Store) LoadHits(ctx context.Context, ids []int64, scope rag.Scope) ([]rag.Hit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	from, until := periodArgs(scope)
	rows, err := s.pool.Query(ctx, hitSelect+`
		WHERE c.id = ANY($1) AND c.groups && $2::text[] AND cita_citable(c.valid, $3, $4)`, ids, scope.Groups(), from, until)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	hits, err := pgx.CollectRows(rows, scanHit)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	return hits, nil
}

// periodArgs returns the validity period's bounds for cita_citable: both nil for "now" (the
// scope's zero Period), else the period [from, until).
func periodArgs(scope rag.Scope) (from, until *time.Time) {
	p := scope.Period()
	if p.IsZero() {
		return nil, nil
	}
	return &p.From, &p.Until
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
