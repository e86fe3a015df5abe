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

// readableSQL returns the classes the groups ($1) may read.
const readableSQL = `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM access_classes WHERE groups && $1::text[]`

// scopeCorpusSQL returns, per vector kind, the chunk count and summed lengths of the classes
// the groups ($1) may read, pending deltas included.
const scopeCorpusSQL = `
WITH cls AS (SELECT coalesce(array_agg(id), '{}') AS ids FROM access_classes WHERE groups && $1::text[])
SELECT kind::text, sum(chunks)::bigint, sum(total_len)::bigint FROM (
	SELECT kind, chunks, total_len FROM class_corpus_stats WHERE class_id = ANY((SELECT ids FROM cls)::bigint[])
	UNION ALL
	SELECT kind, chunks, total_len FROM class_corpus_delta WHERE class_id = ANY((SELECT ids FROM cls)::bigint[])
) x GROUP BY kind`

// simpleDFSQL counts, for each tsquery of $1 in order, the chunks the scope ($2, groups) may
// read whose simple vector holds it, up to 10,000: the fallback for words the stemmed vocabulary
// lacks, rare by nature.
const simpleDFSQL = `
SELECT n FROM unnest($1::text[]) WITH ORDINALITY AS q(query, ord)
CROSS JOIN LATERAL (SELECT count(*) AS n FROM (
	SELECT 1 FROM chunks WHERE tsv_simple @@ q.query::tsquery AND groups && $2::text[] LIMIT 10000) x) c
ORDER BY q.ord`

// RebuildClassStats recomputes the per-class term statistics from the chunks, as
// cita_rebuild_stats does for the global ones: after a bulk load, whose writes skip the triggers.
// It returns an error when the rebuild fails.
func (s *Store) RebuildClassStats(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `SELECT cita_rebuild_class_stats()`); err != nil {
		return fmt.Errorf("rebuild per-class term statistics: %w", err)
	}
	return nil
}
