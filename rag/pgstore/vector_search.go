package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/citahq/cita/rag"
)

// SearchVector returns the k chunks nearest to vec (cosine) among those the scope may read. The
// access filter sits in the query's WHERE; pgvector's iterative index scan keeps returning
// neighbours until k of them pass it, so recall holds under a selective filter.
func (s *Store) SearchVector(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	if len(vec) != s.model.Dimension {
		return nil, fmt.Errorf("vector search: query has %d dimensions, the index for %s has %d", len(vec), s.model.Model, s.model.Dimension)
	}
	sql := fmt.Sprintf(`SELECT id, dist FROM (
			SELECT id, %[1]s OPERATOR(public.<=>) $1::public.vector AS dist
			FROM chunks
			WHERE embed_model = %[2]s AND groups && $2::text[]
			ORDER BY %[1]s OPERATOR(public.<=>) $1::public.vector
			LIMIT $4
		) nearest ORDER BY dist, id LIMIT $3`, s.vectorExpr, s.modelLit)
	var hits []rag.ArmHit
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// SET LOCAL keeps these to this query; relaxed_order lets the scan go on past ef_search
		// when the filter drops candidates, and the outer ORDER BY restores exact order.
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL hnsw.ef_search = %d; SET LOCAL hnsw.iterative_scan = relaxed_order", max(s.EfSearch, k))); err != nil {
			return err
		}
		// The relaxed scan returns neighbours only roughly in order, so the inner query takes a
		// few times k and the outer one keeps the true nearest k of those.
		rows, err := tx.Query(ctx, sql, pgvector.NewVector(vec), scope.Groups(), k, k*s.Overfetch)
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
		return nil, fmt.Errorf("vector search: %w", err)
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

// SearchVectorExact is SearchVector without the index: an exact scan under the same filter, the
// ground truth for measuring the index's recall.
func (s *Store) SearchVectorExact(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	sql := fmt.Sprintf(`SELECT id, embedding OPERATOR(public.<=>) $1::public.vector AS dist FROM chunks
		WHERE embed_model = %[1]s AND groups && $2::text[] ORDER BY dist, id LIMIT $3`, s.modelLit)
	var hits []rag.ArmHit
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL enable_indexscan = off"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sql, pgvector.NewVector(vec), scope.Groups(), k)
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
		return nil, fmt.Errorf("exact vector search: %w", err)
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
