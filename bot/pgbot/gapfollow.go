package pgbot

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
)

var _ bot.GapFollowStore = (*Store)(nil)

// openGapsSQL lists the open gaps ($2 at most) a document changed at or after $1 may answer:
// eligible under the privacy rule, grouped, not resolved, never followed up, whose asker's scope
// may read that document.
const openGapsSQL = `
SELECT a.id, a.platform, a.workspace, a.channel, a.thread, a.asker,
	CASE WHEN a.standalone_query <> '' THEN a.standalone_query ELSE a.question END, a.lang,
	NOT (a.public AND NOT a.ephemeral AND a.visible_to = '')
FROM bot_answers a
WHERE a.gap_topic IS NOT NULL AND a.gap_resolved_at IS NULL AND a.gap_followed_at IS NULL
  AND ` + gapEligibleSQL + `
  AND EXISTS (SELECT 1 FROM documents d WHERE d.changed_at >= $1 AND d.groups && a.scope_groups)
ORDER BY a.id
LIMIT $2`

// OpenGaps implements bot.GapFollowStore.
func (s *Store) OpenGaps(ctx context.Context, since time.Time, limit int) ([]bot.OpenGap, error) {
	rows, err := s.pool.Query(ctx, openGapsSQL, since, limit)
	if err != nil {
		return nil, fmt.Errorf("open gaps: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.OpenGap, error) {
		var g bot.OpenGap
		c := &g.Conversation
		return g, r.Scan(&g.AnswerID, &c.Platform, &c.Workspace, &c.Channel, &c.Thread, &g.Asker, &g.Question, &g.Lang, &g.Shared)
	})
	if err != nil {
		return nil, fmt.Errorf("open gaps: %w", err)
	}
	return out, nil
}

// ChangedSince implements bot.GapFollowStore.
func (s *Store) ChangedSince(ctx context.Context, documentIDs []int64, since time.Time) (bool, error) {
	var changed bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM documents WHERE id = ANY($1) AND changed_at >= $2)`,
		documentIDs, since).Scan(&changed)
	if err != nil {
		return false, fmt.Errorf("sources changed: %w", err)
	}
	return changed, nil
}

// ClaimGapFollowUp implements bot.GapFollowStore: the first claim wins, once.
func (s *Store) ClaimGapFollowUp(ctx context.Context, answerID int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE bot_answers SET gap_followed_at = now()
		WHERE id = $1 AND gap_followed_at IS NULL AND gap_resolved_at IS NULL`, answerID)
	if err != nil {
		return false, fmt.Errorf("claim gap follow-up %d: %w", answerID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// GapFollowUpDone implements bot.GapFollowStore.
func (s *Store) GapFollowUpDone(ctx context.Context, answerID, resolvedBy int64, postErr error) error {
	msg := ""
	if postErr != nil {
		msg = postErr.Error()
	}
	var by any
	if resolvedBy != 0 {
		by = resolvedBy
	}
	_, err := s.pool.Exec(ctx, `UPDATE bot_answers SET gap_follow_error = $3,
		gap_resolved_by = $2, gap_resolved_at = CASE WHEN $2::bigint IS NULL THEN NULL ELSE now() END
		WHERE id = $1`, answerID, by, msg)
	if err != nil {
		return fmt.Errorf("record gap follow-up %d: %w", answerID, err)
	}
	return nil
}

// GapCounts returns how many grouped gaps are open and how many were resolved since since: the
// cita_gaps_open gauge and the resolutions per sync.
func (s *Store) GapCounts(ctx context.Context, since time.Time) (open, resolved int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE a.gap_resolved_at IS NULL),
			count(*) FILTER (WHERE a.gap_resolved_at >= $1)
		FROM bot_answers a WHERE a.gap_topic IS NOT NULL AND `+gapEligibleSQL, since).Scan(&open, &resolved)
	if err != nil {
		return 0, 0, fmt.Errorf("count gaps: %w", err)
	}
	return open, resolved, nil
}
