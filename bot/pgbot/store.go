// Package pgbot is the PostgreSQL implementation of bot.Store: answer records, the documents each
// answer used, conversation turns, feedback and event dedupe (migration 0002), and the audience
// versions every replica checks (migration 0009).
package pgbot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Store implements bot.Store on a migrated pool (see pgstore.Open).
type Store struct {
	pool *pgxpool.Pool
}

var _ bot.Store = (*Store)(nil)

// New returns a store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// RecentTurns implements bot.Store. A turn is kept only when its answer was not withdrawn and
// every document the answer used overlaps scope both as it was when answered and as it is now
// (a deleted document hides it).
func (s *Store) RecentTurns(ctx context.Context, conv bot.ConversationKey, scope rag.Scope, n int) ([]rag.Turn, error) {
	if scope.Empty() {
		return nil, rag.ErrNoScope
	}
	rows, err := s.pool.Query(ctx, `
		SELECT role, body, abstained FROM (
			SELECT t.id, t.role, t.body, (t.role = 'assistant' AND (a.abstained OR a.reason <> '')) AS abstained
			FROM bot_turns t JOIN bot_answers a ON a.id = t.answer_id AND a.redacted_at IS NULL
			WHERE t.platform = $1 AND t.workspace = $2 AND t.channel = $3 AND t.thread = $4
			  AND NOT EXISTS (
				SELECT 1 FROM bot_answer_documents ad
				LEFT JOIN documents d ON d.id = ad.document_id
				WHERE ad.answer_id = t.answer_id
				  AND (NOT ad.doc_groups && $5::text[] OR d.id IS NULL OR NOT d.groups && $5::text[]))
			ORDER BY t.id DESC
			LIMIT $6
		) recent ORDER BY id`,
		conv.Platform, conv.Workspace, conv.Channel, conv.Thread, scope.Groups(), n)
	if err != nil {
		return nil, fmt.Errorf("load turns: %w", err)
	}
	turns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rag.Turn, error) {
		var t rag.Turn
		err := r.Scan(&t.Role, &t.Text, &t.Abstained)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("load turns: %w", err)
	}
	return turns, nil
}

// HasTurns implements bot.Store. It looks for a shown answer rather than its turns: a redacted
// answer loses its turns (they copy document text) but the thread stays one the bot answered in.
func (s *Store) HasTurns(ctx context.Context, conv bot.ConversationKey) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bot_answers
		WHERE platform = $1 AND workspace = $2 AND channel = $3 AND thread = $4 AND NOT ephemeral)`,
		conv.Platform, conv.Workspace, conv.Channel, conv.Thread).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up conversation: %w", err)
	}
	return ok, nil
}

// RecordFeedback implements bot.Store; a second click by the same user replaces the rating. The
// visibility check is in the INSERT: the rating is stored only for an answer of the rater's
// conversation that was not an ephemeral reply to someone else and was not redacted.
func (s *Store) RecordFeedback(ctx context.Context, fb bot.Feedback) error {
	if fb.Rating != 1 && fb.Rating != -1 {
		return fmt.Errorf("rating %d: use +1 or -1", fb.Rating)
	}
	c := fb.Conversation
	tag, err := s.pool.Exec(ctx, `INSERT INTO bot_feedback (answer_id, user_id, rating)
		SELECT a.id, $2, $3 FROM bot_answers a
		WHERE a.id = $1 AND a.platform = $4 AND a.workspace = $5 AND a.channel = $6 AND a.thread = $7
		  AND (a.visible_to = '' OR a.visible_to = $2) AND a.redacted_at IS NULL
		ON CONFLICT (answer_id, user_id) DO UPDATE SET rating = EXCLUDED.rating, updated_at = now()`,
		fb.AnswerID, fb.UserID, fb.Rating, c.Platform, c.Workspace, c.Channel, c.Thread)
	if err != nil {
		return fmt.Errorf("record feedback on answer %d: %w", fb.AnswerID, err)
	}
	if tag.RowsAffected() == 0 {
		return s.whyNotVisible(ctx, fb.AnswerID, bot.Viewer{Conversation: c, UserID: fb.UserID})
	}
	return nil
}

// Ratings returns the sum and count of an answer's ratings.
func (s *Store) Ratings(ctx context.Context, answerID int64) (sum, count int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT coalesce(sum(rating), 0), count(*) FROM bot_feedback WHERE answer_id = $1`, answerID).Scan(&sum, &count)
	if err != nil {
		return 0, 0, fmt.Errorf("load ratings of answer %d: %w", answerID, err)
	}
	return sum, count, nil
}

// MarkEvent implements bot.Store.
func (s *Store) MarkEvent(ctx context.Context, eventID string) (bool, error) {
	if eventID == "" {
		return true, nil // nothing to dedupe by
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO bot_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING`, eventID)
	if err != nil {
		return false, fmt.Errorf("mark event %s: %w", eventID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// PruneEvents forgets event ids seen before cutoff (Slack retries within an hour) and returns how
// many it removed.
func (s *Store) PruneEvents(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM bot_events WHERE seen_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune events: %w", err)
	}
	return tag.RowsAffected(), nil
}

// IndexEmpty reports whether no document is indexed (for bot.HandlerOptions.IndexEmpty).
func (s *Store) IndexEmpty(ctx context.Context) (bool, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM documents)`).Scan(&exists); err != nil {
		return false, fmt.Errorf("count documents: %w", err)
	}
	return !exists, nil
}

func notFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
