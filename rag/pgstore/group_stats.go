package pgstore

import (
	"context"
	"fmt"
)

// The full-text arm's statistics are kept per access group (migrations/0010_scope_traces.sql):
// a search sums the rows of the groups its scope holds, so documents outside the scope change
// nothing it computes or shows (issue 12, finding 8). A chunk readable through two of the
// scope's groups counts twice, in the document frequencies and in the corpus size alike.

// scopeCorpusSQL returns, per vector kind, the chunk count and summed lengths of the scope's
// groups ($1), pending deltas included.
const scopeCorpusSQL = `
SELECT kind::text, sum(chunks)::bigint, sum(total_len)::bigint FROM (
	SELECT kind, chunks, total_len FROM group_corpus_stats WHERE grp = ANY($1::text[])
	UNION ALL
	SELECT kind, chunks, total_len FROM group_corpus_delta WHERE grp = ANY($1::text[])
) x GROUP BY kind`

// simpleDFSQL counts the chunks the scope ($2) may read whose simple vector holds the tsquery
// $1, each once per scope group it carries (as the per-group statistics count), up to 10,000
// chunks: the fallback for words the stemmed vocabulary lacks, rare by nature.
const simpleDFSQL = `
SELECT coalesce(sum(cardinality(ARRAY(SELECT unnest(c.groups) INTERSECT SELECT unnest($2::text[])))), 0)::bigint
FROM (SELECT groups FROM chunks WHERE tsv_simple @@ $1::tsquery AND groups && $2::text[] LIMIT 10000) c`

// RebuildGroupStats recomputes the per-group term statistics from the chunks, as
// cita_rebuild_stats does for the global ones: after a bulk load, whose writes skip the triggers.
// It returns an error when the rebuild fails.
func (s *Store) RebuildGroupStats(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `SELECT cita_rebuild_group_stats()`); err != nil {
		return fmt.Errorf("rebuild per-group term statistics: %w", err)
	}
	return nil
}
