package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// SampleChunks returns up to n chunks the scope may read and cite now, drawn evenly over the
// index in a repeatable order (seed picks the order): what `cita calibrate` builds its probe
// questions from. The scope's filter is in the WHERE, as on every path.
func (s *Store) SampleChunks(ctx context.Context, scope rag.Scope, n int, seed int64) ([]rag.Hit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	from, until := periodArgs(scope)
	rows, err := s.pool.Query(ctx, hitSelect+`
		WHERE c.groups && $1::text[] AND cita_citable(c.valid, $2, $3) AND length(c.content) >= 80
		ORDER BY md5(c.id::text || ':' || $4::bigint::text)
		LIMIT $5`, scope.Groups(), from, until, seed, n)
	if err != nil {
		return nil, fmt.Errorf("sample chunks: %w", err)
	}
	hits, err := pgx.CollectRows(rows, scanHit)
	if err != nil {
		return nil, fmt.Errorf("sample chunks: %w", err)
	}
	return hits, nil
}
