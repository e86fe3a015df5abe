package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// SearchFTSReads is SearchFTS, returning also how many candidates the arm read.
func (s *Store) SearchFTSReads(ctx context.Context, query rag.FTSQuery, scope rag.Scope, k int) ([]rag.ArmHit, int, error) {
	hits, _, read, err := s.searchFTS(ctx, query, scope, k)
	return hits, read, err
}

// Exhaustive returns a copy of the store whose full-text arm reads every candidate of every
// word at once, without bounds or budget: the truth the pruned arm is held to.
func (s *Store) Exhaustive() *Store {
	c := *s
	c.ftsExhaustive = true
	c.FTSCandidateBudget = 1 << 40
	return &c
}

// VectorSettingsInPipeline runs, in one pipeline on one connection, the vector arm's settings
// for an index plan and then reads them back; then reads them again after the pipeline.
func (s *Store) VectorSettingsInPipeline(ctx context.Context) (inside, after [3]string, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return inside, after, err
	}
	defer conn.Release()
	const read = `SELECT current_setting('hnsw.ef_search'), current_setting('enable_sort'), current_setting('max_parallel_workers_per_gather')`
	setSQL, setArgs := settingsSQL(append(armSettings, vectorScanSettings(123)...))
	batch := &pgx.Batch{}
	batch.Queue(setSQL, setArgs...)
	batch.Queue(read)
	br := conn.SendBatch(ctx, batch)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return inside, after, err
	}
	if err := br.QueryRow().Scan(&inside[0], &inside[1], &inside[2]); err != nil {
		br.Close()
		return inside, after, err
	}
	if err := br.Close(); err != nil {
		return inside, after, err
	}
	err = conn.QueryRow(ctx, read).Scan(&after[0], &after[1], &after[2])
	return inside, after, err
}

// WithoutSharedStats returns a copy of the store whose full-text parts each read their own
// statistics (fts_shared.go): what the shared ones are held to.
func (s *Store) WithoutSharedStats() *Store {
	c := *s
	c.asked = nil
	return &c
}

// SharedStats says how many asked parts' statistics wait for their translated part, and how
// many translated parts took them.
func (s *Store) SharedStats() (pending int, taken int64) {
	s.asked.mu.Lock()
	defer s.asked.mu.Unlock()
	return len(s.asked.pending), s.asked.taken.Load()
}
