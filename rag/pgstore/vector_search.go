package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/citahq/cita/rag"
)

// SearchVector returns the k chunks nearest to vec (cosine) among those the scope may read. It
// plans from the classes the scope reads (vector_plan.go): their own graphs where they have
// them, an exact scan of the rest when it is small, the shared graph's iterative scan above
// that. A part an index scan leaves short is searched again exactly, so the arm returns k rows
// whenever the scope holds them, whatever plan PostgreSQL chose. The access filter sits in
// every part's WHERE. It returns rag.ErrNoScope for an empty scope and an error when vec does
// not have the store's dimension or a query fails.
func (s *Store) SearchVector(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	if err := s.checkVectorQuery(vec, scope, "vector search"); err != nil {
		return nil, err
	}
	classes, err := s.readableClasses(ctx, scope.Groups())
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	plan := planVector(classes, s.ExactVectorMax)
	rows, err := s.runVectorPlan(ctx, "vector search", plan, vec, scope, k)
	if err != nil {
		return nil, err
	}
	if short := plan.shortParts(rows, k); len(short.parts) > 0 {
		again, err := s.runVectorPlan(ctx, "vector search (exact, after a short index scan)", short.exactOnly(), vec, scope, k)
		if err != nil {
			return nil, err
		}
		rows = replaceParts(rows, short, again)
	}
	return nearestHits(rows, k), nil
}

// SearchVectorExact is SearchVector without any index: an exact scan under the same filter, the
// ground truth for measuring the index's recall.
func (s *Store) SearchVectorExact(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	if err := s.checkVectorQuery(vec, scope, "exact vector search"); err != nil {
		return nil, err
	}
	rows, err := s.runVectorPlan(ctx, "exact vector search", vectorPlan{parts: []vectorPart{{}}}, vec, scope, k)
	if err != nil {
		return nil, err
	}
	return nearestHits(rows, k), nil
}

// checkVectorQuery returns rag.ErrNoScope for an empty scope, and an error when vec does not
// have the store's dimension.
func (s *Store) checkVectorQuery(vec []float32, scope rag.Scope, name string) error {
	if scope.Empty() {
		return rag.ErrNoScope
	}
	if len(vec) != s.model.Dimension {
		return fmt.Errorf("%s: query has %d dimensions, the index for %s has %d", name, len(vec), s.model.Model, s.model.Dimension)
	}
	return nil
}

// partRow is one neighbour a plan's part found.
type partRow struct {
	part int
	id   int64
	dist float64
}

// runVectorPlan runs plan's statement with its settings in one round trip: a pipeline, whose
// statements share one implicit transaction, so the settings hold for the query and end with
// it (settingsSQL).
func (s *Store) runVectorPlan(ctx context.Context, name string, plan vectorPlan, vec []float32, scope rag.Scope, k int) ([]partRow, error) {
	from, until := periodArgs(scope)
	sql, rest := s.vectorSQL(plan, k, s.Overfetch, from, until)
	args := append([]any{pgvector.NewVector(vec), scope.Groups()}, rest...)
	settings := armSettings
	if plan.indexed() {
		settings = slices.Concat(armSettings, vectorScanSettings(max(s.EfSearch, k)))
	}
	setSQL, setArgs := settingsSQL(settings)
	batch := &pgx.Batch{}
	batch.Queue(setSQL, setArgs...)
	if p, _ := ctx.Value(plansKey{}).(*Plans); p != nil {
		batch.Queue("EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	}
	batch.Queue(sql, args...)
	br := s.pool.SendBatch(ctx, batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("%s: settings: %w", name, err)
	}
	if p, _ := ctx.Value(plansKey{}).(*Plans); p != nil {
		if err := collectPlan(br, p, name); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (partRow, error) {
		var r partRow
		return r, row.Scan(&r.part, &r.id, &r.dist)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// shortParts returns the plan's index parts that found fewer than k rows (or fewer than they
// were asked for) while their classes hold more: an index scan that stopped early. Each keeps
// its number in p as its origin.
func (p vectorPlan) shortParts(rows []partRow, k int) vectorPlan {
	found := make([]int64, len(p.parts))
	for _, r := range rows {
		found[r.part]++
	}
	var short vectorPlan
	for i, part := range p.parts {
		if part.indexed && found[i] < int64(k) && found[i] < part.chunks {
			part.origin = i
			short.parts = append(short.parts, part)
		}
	}
	return short
}

// replaceParts drops from rows the parts searched again and adds what the exact search found,
// numbered as the parts of the original plan.
func replaceParts(rows []partRow, short vectorPlan, again []partRow) []partRow {
	redone := map[int]bool{}
	for _, part := range short.parts {
		redone[part.origin] = true
	}
	out := rows[:0]
	for _, r := range rows {
		if !redone[r.part] {
			out = append(out, r)
		}
	}
	for _, r := range again {
		r.part = short.parts[r.part].origin
		out = append(out, r)
	}
	return out
}

// nearestHits returns the k nearest rows, by distance then id, as hits ranked from 1 and scored
// 1 - cosine distance.
func nearestHits(rows []partRow, k int) []rag.ArmHit {
	slices.SortFunc(rows, func(a, b partRow) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.id, b.id))
	})
	rows = rows[:min(len(rows), k)]
	hits := make([]rag.ArmHit, len(rows))
	for i, r := range rows {
		hits[i] = rag.ArmHit{ChunkID: r.id, Score: 1 - r.dist, Rank: i + 1}
	}
	return hits
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
