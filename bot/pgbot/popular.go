package pgbot

import (
	"context"
	"fmt"

	"github.com/citahq/cita/rag"
)

// popularSQL lists the standalone queries most asked in a workspace ($1 platform, $2
// workspace) by at least $4 distinct people, among answers (not abstentions, not reasons, not
// redacted) shown in a public channel (never a DM, a private channel, an assistant thread or an
// ephemeral reply: what was asked there is its askers' alone) whose every document the viewer
// ($3 groups) may read as it was then and as it is now: the same check as "how I answered", in
// the WHERE, so a question about documents the viewer may not read is never suggested to them.
const popularSQL = `
SELECT (array_agg(a.standalone_query ORDER BY a.created_at DESC))[1]
FROM bot_answers a
WHERE a.platform = $1 AND a.workspace = $2
	AND a.public AND a.visible_to = ''
	AND a.redacted_at IS NULL AND NOT a.abstained AND NOT a.hedged AND a.reason = ''
	AND EXISTS (SELECT 1 FROM bot_answer_documents ad WHERE ad.answer_id = a.id)
	AND NOT EXISTS (
		SELECT 1 FROM bot_answer_documents ad
		LEFT JOIN documents d ON d.id = ad.document_id
		WHERE ad.answer_id = a.id
		  AND (NOT ad.doc_groups && $3::text[] OR d.id IS NULL OR NOT d.groups && $3::text[]))
GROUP BY lower(btrim(a.standalone_query, ' ?¿!¡.'))
HAVING count(DISTINCT a.asker) >= $4
ORDER BY count(DISTINCT a.asker) DESC, max(a.created_at) DESC
LIMIT $5`

// MinPopularAskers is how many different people must have asked a question before
// PopularQuestions suggests it to anyone: one person's question is theirs alone.
const MinPopularAskers = 2

// PopularQuestions returns up to limit questions (their standalone form) most asked in public
// channels on platform in workspace by at least MinPopularAskers people, whose answers used
// only documents scope may read. It returns rag.ErrNoScope for an empty scope, or a database error.
func (s *Store) PopularQuestions(ctx context.Context, platform, workspace string, scope rag.Scope, limit int) ([]string, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	rows, err := s.pool.Query(ctx, popularSQL, platform, workspace, scope.Groups(), MinPopularAskers, limit)
	if err != nil {
		return nil, fmt.Errorf("popular questions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			return nil, fmt.Errorf("popular questions: %w", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("popular questions: %w", err)
	}
	return out, nil
}
