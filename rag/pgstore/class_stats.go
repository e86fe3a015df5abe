package pgstore

import (
	"context"
	"fmt"
)

// The full-text arm's statistics are kept per access class, one distinct list of groups
// (migrations/0014_scope_traces.sql): a search sums the classes its scope may read, so documents
// outside the scope change nothing it computes or shows (issue 12, finding 8), and each readable
// chunk counts exactly once.

// readable is what a scope may read, for the full-text statistics: its groups (for filters on
// chunks) and the access classes whose groups overlap them (for the per-class statistics).
type readable struct {
	groups  []string
	classes []int64
}

// readableOf returns the classes the groups may read. It returns an error when the database
// cannot be read.
func (s *Store) readableOf(ctx context.Context, groups []string) (readable, error) {
	r := readable{groups: groups}
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM access_classes WHERE groups && $1::text[]`,
		groups).Scan(&r.classes); err != nil {
		return readable{}, fmt.Errorf("full-text search: access classes: %w", err)
	}
	return r, nil
}

// scopeCorpusSQL returns, per vector kind, the chunk count and summed lengths of the readable
// classes ($1), pending deltas included.
const scopeCorpusSQL = `
SELECT kind::text, sum(chunks)::bigint, sum(total_len)::bigint FROM (
	SELECT kind, chunks, total_len FROM class_corpus_stats WHERE class_id = ANY($1::bigint[])
	UNION ALL
	SELECT kind, chunks, total_len FROM class_corpus_delta WHERE class_id = ANY($1::bigint[])
) x GROUP BY kind`

// simpleDFSQL counts the chunks the scope ($2, groups) may read whose simple vector holds the
// tsquery $1, up to 10,000: the fallback for words the stemmed vocabulary lacks, rare by nature.
const simpleDFSQL = `SELECT count(*) FROM (SELECT 1 FROM chunks WHERE tsv_simple @@ $1::tsquery AND groups && $2::text[] LIMIT 10000) x`

// RebuildClassStats recomputes the per-class term statistics from the chunks, as
// cita_rebuild_stats does for the global ones: after a bulk load, whose writes skip the triggers.
// It returns an error when the rebuild fails.
func (s *Store) RebuildClassStats(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `SELECT cita_rebuild_class_stats()`); err != nil {
		return fmt.Errorf("rebuild per-class term statistics: %w", err)
	}
	return nil
}
