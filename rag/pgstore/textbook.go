package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/citahq/cita/rag"
)

// textbookSQL is the hybrid search PostgreSQL guides teach, for `cita bench --compare` to measure
// cita's against: plainto_tsquery ranked by ts_rank_cd and the pgvector top-k, each cut to $5,
// fused with Reciprocal Rank Fusion (k = 60) in one statement. The access filter and validity
// are the same as cita's arms ($2; the period $7, $8). %[1]s and %[2]s are the store's vector expression and model
// literal, as in vector_search.go.
const textbookSQL = `
WITH q AS (SELECT plainto_tsquery($4::regconfig, cita_unaccent($3)) AS q),
v AS (
	SELECT id, row_number() OVER (ORDER BY dist, id) AS r FROM (
		SELECT id, %[1]s OPERATOR(public.<=>) $1::public.vector AS dist FROM chunks
		WHERE embed_model = %[2]s AND groups && $2::text[] AND cita_citable(valid, $7, $8)
		ORDER BY %[1]s OPERATOR(public.<=>) $1::public.vector LIMIT $5
	) nearest
),
f AS (
	SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r FROM (
		SELECT c.id, ts_rank_cd(c.tsv, q.q) AS rank FROM chunks c, q
		WHERE c.tsv @@ q.q AND c.groups && $2::text[] AND cita_citable(c.valid, $7, $8)
		ORDER BY rank DESC, c.id LIMIT $5
	) ranked
)
SELECT id, sum(1.0 / (60 + r))::float8 AS score FROM (SELECT * FROM v UNION ALL SELECT * FROM f) both_arms
GROUP BY id ORDER BY score DESC, id LIMIT $6`

// SearchTextbook runs the textbook hybrid (textbookSQL) for a question in lang ("es", "en" or
// other: simple) and its embedding vec, under the same vector-index settings as SearchVector, and
// returns the k best chunks ranked from 1. A baseline for benchmarks, not a serving path.
func (s *Store) SearchTextbook(ctx context.Context, question, lang string, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	const perArm = 50
	from, until := periodArgs(scope)
	var hits []rag.ArmHit
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		setSQL, setArgs := settingsSQL(slices.Concat(armSettings, vectorScanSettings(max(s.EfSearch, perArm))))
		if _, err := tx.Exec(ctx, setSQL, setArgs...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, fmt.Sprintf(textbookSQL, s.vectorExpr, s.modelLit),
			pgvector.NewVector(vec), scope.Groups(), question, tsConfig(lang), perArm, k, from, until)
		if err != nil {
			return err
		}
		hits, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (rag.ArmHit, error) {
			var h rag.ArmHit
			return h, row.Scan(&h.ChunkID, &h.Score)
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("textbook hybrid search: %w", err)
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}
