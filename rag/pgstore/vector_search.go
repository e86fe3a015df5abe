package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/citahq/cita/rag"
)

// The vector arm's statements. Each keeps vectorFilter, the store's model and the caller's access
// groups ($2), in its WHERE, and cita_citable over the validity period ($5, $6; periodArgs). %[1]s is the store's indexed vector expression and %[2]s its model
// literal, both fixed in New from a checked model name and a number, never from a request.
const (
	vectorFilter = `embed_model = %[2]s AND groups && $2::text[] AND cita_citable(valid, $5, $6)`
	// indexedVectorSQL: the relaxed index scan returns neighbours only roughly in order, so the
	// inner query takes $4 (a few times k) of them and the outer one keeps the true nearest $3.
	indexedVectorSQL = `SELECT id, dist FROM (
			SELECT id, %[1]s OPERATOR(public.<=>) $1::public.vector AS dist
			FROM chunks
			WHERE ` + vectorFilter + `
			ORDER BY %[1]s OPERATOR(public.<=>) $1::public.vector
			LIMIT $4
		) nearest ORDER BY dist, id LIMIT $3`
	// $4 is unused here (kept so both statements number the period alike).
	exactVectorSQL = `SELECT id, embedding OPERATOR(public.<=>) $1::public.vector AS dist FROM chunks
		WHERE ` + vectorFilter + ` AND $4::int IS NOT NULL ORDER BY dist, id LIMIT $3`
)

// hnswSettings are the index scan's settings for a search wanting ef candidates: relaxed_order
// lets the scan go on past ef_search when the filter drops candidates, and the caller's outer
// ORDER BY restores exact order.
func hnswSettings(ef int) string {
	return fmt.Sprintf("SET LOCAL hnsw.ef_search = %d; SET LOCAL hnsw.iterative_scan = relaxed_order", ef)
}

// vectorQuery is one way of running the vector arm: a statement above and the planner settings
// it runs under.
type vectorQuery struct {
	name     string // prefixes its errors
	settings string // SET LOCAL statements, so they end with the query's transaction
	sql      string
	args     []any // $3 and $4, after $1 (the vector) and $2 (the groups); the period follows
}

// SearchVector returns the k chunks nearest to vec (cosine) among those the scope may read. The
// access filter sits in the query's WHERE; pgvector's iterative index scan keeps returning
// neighbours until k of them pass it, so recall holds under a selective filter.
func (s *Store) SearchVector(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	return s.nearest(ctx, vec, scope, vectorQuery{
		name: "vector search",
		// relaxed_order lets the scan go on past ef_search when the filter drops candidates, and
		// the outer ORDER BY restores exact order.
		settings: hnswSettings(max(s.EfSearch, k)),
		sql:      fmt.Sprintf(indexedVectorSQL, s.vectorExpr, s.modelLit),
		args:     []any{k, k * s.Overfetch},
	})
}

// SearchVectorExact is SearchVector without the index: an exact scan under the same filter, the
// ground truth for measuring the index's recall.
func (s *Store) SearchVectorExact(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	return s.nearest(ctx, vec, scope, vectorQuery{
		name:     "exact vector search",
		settings: "SET LOCAL enable_indexscan = off",
		sql:      fmt.Sprintf(exactVectorSQL, s.vectorExpr, s.modelLit),
		args:     []any{k, 0},
	})
}

// nearest runs q for vec under scope in its own transaction and returns the hits ranked from 1,
// scored 1 - cosine distance. It returns rag.ErrNoScope for an empty scope and an error when vec
// does not have the store's dimension or the query fails.
func (s *Store) nearest(ctx context.Context, vec []float32, scope rag.Scope, q vectorQuery) ([]rag.ArmHit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	if len(vec) != s.model.Dimension {
		return nil, fmt.Errorf("%s: query has %d dimensions, the index for %s has %d", q.name, len(vec), s.model.Model, s.model.Dimension)
	}
	var hits []rag.ArmHit
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, q.settings); err != nil {
			return err
		}
		from, until := periodArgs(scope)
		args := append(append([]any{pgvector.NewVector(vec), scope.Groups()}, q.args...), from, until)
		if err := explainFirst(ctx, tx, q.name, q.sql, args...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, q.sql, args...)
		if err != nil {
			return err
		}
		hits, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (rag.ArmHit, error) {
			var h rag.ArmHit
			var dist float64
			err := row.Scan(&h.ChunkID, &dist)
			h.Score = 1 - dist
			return h, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q.name, err)
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

// Distances returns the full-precision cosine distance between vec and each chunk in ids, for
// measuring recall when many chunks sit at nearly the same distance.
func (s *Store) Distances(ctx context.Context, vec []float32, ids []int64) (map[int64]float64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, embedding OPERATOR(public.<=>) $1::public.vector FROM chunks WHERE id = ANY($2)`,
		pgvector.NewVector(vec), ids)
	if err != nil {
		return nil, fmt.Errorf("distances: %w", err)
	}
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var d float64
		if err := rows.Scan(&id, &d); err != nil {
			return nil, fmt.Errorf("distances: %w", err)
		}
		out[id] = d
	}
	return out, rows.Err()
}
