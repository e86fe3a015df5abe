package pgstore

import (
	"context"
	"fmt"
)

// HasVectors reports whether any chunk carries an embedding of the store's model.
func (s *Store) HasVectors(ctx context.Context) (bool, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE embed_model = $1)`, s.model.Model).Scan(&exists); err != nil {
		return false, fmt.Errorf("look for vectors of %s: %w", s.model.Model, err)
	}
	return exists, nil
}

// BeginBulkLoad prepares a first, bulk index: it drops the model's HNSW index and makes this
// store's writes skip the per-statement term-statistics triggers. EndBulkLoad must follow,
// whatever happens to the load.
func (s *Store) BeginBulkLoad(ctx context.Context) error {
	if err := s.DropVectorIndex(ctx); err != nil {
		return err
	}
	s.bulk.Store(true)
	return nil
}

// EndBulkLoad rebuilds the term statistics from the chunks and the model's HNSW index.
func (s *Store) EndBulkLoad(ctx context.Context) error {
	s.bulk.Store(false)
	if _, err := s.pool.Exec(ctx, `SELECT cita_rebuild_stats()`); err != nil {
		return fmt.Errorf("rebuild term statistics: %w", err)
	}
	if err := s.RebuildClassStats(ctx); err != nil {
		return err
	}
	if err := s.EnsureVectorIndex(ctx); err != nil {
		return err
	}
	// Fresh planner statistics for the table the load just filled.
	if _, err := s.pool.Exec(ctx, "ANALYZE chunks"); err != nil {
		return fmt.Errorf("analyze chunks: %w", err)
	}
	return nil
}

// DropVectorIndex removes the model's HNSW index. A first, bulk index of many documents loads
// faster without it and builds it once at the end (EnsureVectorIndex): one parallel build costs
// less than maintaining the graph row by row. Until then the vector arm scans exactly.
func (s *Store) DropVectorIndex(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "DROP INDEX IF EXISTS "+s.vectorIndex); err != nil {
		return fmt.Errorf("drop vector index for model %s: %w", s.model.Model, err)
	}
	return nil
}
