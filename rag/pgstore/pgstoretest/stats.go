package pgstoretest

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ClassStatsProblems compares the per-access-class statistics (stats plus pending deltas) with
// a count from the chunks themselves, and says what differs, or returns "". A readable chunk
// whose groups have no access class is a problem too; a withheld chunk (no group) has no class
// and counts nowhere. A chunk whose class_id is not its groups' class (none for a withheld one) is
// a problem too. On a query error it calls t.Fatal.
func ClassStatsProblems(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	var lexemes, corpus, classless, misclassed int
	err := pool.QueryRow(context.Background(), `
		WITH truth AS (
			SELECT c.id AS class_id, l AS lexeme, count(*)::int AS df
			FROM chunks ch JOIN access_classes c ON c.groups = ch.groups, unnest(tsvector_to_array(ch.tsv)) l GROUP BY c.id, l
		), known AS (
			SELECT class_id, lexeme, sum(df)::int AS df FROM (
				SELECT class_id, lexeme, df FROM class_lexeme_stats UNION ALL SELECT class_id, lexeme, df FROM class_lexeme_delta) x
			GROUP BY class_id, lexeme HAVING sum(df) <> 0
		), ctruth AS (
			SELECT c.id AS class_id, 't'::"char" AS kind, count(*) AS chunks, sum(length(tsv))::bigint AS total_len
			FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id
			UNION ALL
			SELECT c.id, 's', count(*), sum(length(tsv_simple))::bigint FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id
		), cknown AS (
			SELECT class_id, kind, sum(chunks)::bigint AS chunks, sum(total_len)::bigint AS total_len FROM (
				SELECT class_id, kind, chunks, total_len FROM class_corpus_stats UNION ALL SELECT class_id, kind, chunks, total_len FROM class_corpus_delta) x
			GROUP BY class_id, kind HAVING sum(chunks) <> 0 OR sum(total_len) <> 0
		)
		SELECT (SELECT count(*) FROM truth FULL JOIN known USING (class_id, lexeme) WHERE truth.df IS DISTINCT FROM known.df),
			(SELECT count(*) FROM ctruth FULL JOIN cknown USING (class_id, kind)
				WHERE ctruth.chunks IS DISTINCT FROM cknown.chunks OR ctruth.total_len IS DISTINCT FROM cknown.total_len),
			(SELECT count(*) FROM chunks ch WHERE cardinality(ch.groups) > 0
				AND NOT EXISTS (SELECT 1 FROM access_classes c WHERE c.groups = ch.groups)),
			(SELECT count(*) FROM chunks ch LEFT JOIN access_classes c ON c.groups = ch.groups
				WHERE ch.class_id IS DISTINCT FROM c.id)`).Scan(&lexemes, &corpus, &classless, &misclassed)
	if err != nil {
		t.Fatalf("count per-class statistics: %v", err)
	}
	if lexemes == 0 && corpus == 0 && classless == 0 && misclassed == 0 {
		return ""
	}
	return fmt.Sprintf("per access class: %d (class, lexeme) frequencies and %d (class, kind) corpus rows are wrong, %d chunks have no class, %d name another class than their groups'",
		lexemes, corpus, classless, misclassed)
}
