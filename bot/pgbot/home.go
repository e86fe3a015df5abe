package pgbot

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// OwnQuestions returns user's latest questions (pipeline replies, not reasons) in a workspace,
// newest first: what the home view shows its own reader.
func (s *Store) OwnQuestions(ctx context.Context, platform, workspace, user string, limit int) ([]bot.OwnQuestion, error) {
	rows, err := s.pool.Query(ctx, `SELECT question, created_at, abstained, hedged, redacted_at IS NOT NULL,
			gap_shared_by <> '', gap_resolved_at IS NOT NULL
		FROM bot_answers WHERE platform = $1 AND workspace = $2 AND asker = $3 AND reason = ''
		ORDER BY id DESC LIMIT $4`, platform, workspace, user, limit)
	if err != nil {
		return nil, fmt.Errorf("own questions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.OwnQuestion, error) {
		var q bot.OwnQuestion
		var declined, hedged bool
		if err := r.Scan(&q.Question, &q.At, &declined, &hedged, &q.Withdrawn, &q.Shared, &q.Resolved); err != nil {
			return q, err
		}
		switch {
		case declined:
			q.Outcome = bot.OutcomeAbstained
		case hedged:
			q.Outcome = bot.OutcomeHedged
		default:
			q.Outcome = bot.OutcomeAnswered
		}
		return q, nil
	})
	if err != nil {
		return nil, fmt.Errorf("own questions: %w", err)
	}
	return out, nil
}

// OwnedDocuments counts, per source, the documents reader may read whose owner names email
// (case-insensitively, as a whole address): what the person owns, as far as they may see.
func (s *Store) OwnedDocuments(ctx context.Context, email string, reader rag.Scope) (map[string]int, error) {
	out := map[string]int{}
	if email == "" || reader.Empty() {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT source, count(*) FROM documents
		WHERE owner ~* ('(^|[^a-z0-9._%+-])' || regexp_replace($1, '([.+*?^$()\[\]{}|\\])', '\\\1', 'g') || '($|[^a-z0-9.-])')
		  AND groups && $2::text[]
		GROUP BY source ORDER BY source`, email, reader.Groups())
	if err != nil {
		return nil, fmt.Errorf("owned documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var n int
		if err := rows.Scan(&src, &n); err != nil {
			return nil, fmt.Errorf("owned documents: %w", err)
		}
		out[src] = n
	}
	return out, rows.Err()
}
