package pgbot

import (
	"context"
	"fmt"

	"github.com/citahq/cita/bot"
)

// AnswerWithdrawn implements bot.Audiences.
func (s *Store) AnswerWithdrawn(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	return s.loadRedaction(ctx, `SELECT `+redactionColumns+` FROM bot_answers
		WHERE id = $1 AND redaction_reason = 'audience_widened'`, answerID)
}

// AnswerWritten implements bot.Audiences in one statement: the write is counted, and a withdrawn
// answer's notice is marked as not shown (the write may have covered it) and returned.
func (s *Store) AnswerWritten(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	return s.loadRedaction(ctx, `WITH written AS (
			UPDATE bot_answers SET text_writes = text_writes + 1,
				redaction_shown = redaction_shown AND redaction_reason IS DISTINCT FROM 'audience_widened'
			WHERE id = $1
			RETURNING `+redactionColumns+`, redaction_reason)
		SELECT `+redactionColumns+` FROM written WHERE redaction_reason = 'audience_widened'`, answerID)
}

// ReadersSettled implements bot.Audiences.
func (s *Store) ReadersSettled(ctx context.Context, platform, workspace, channel string, readers []byte) error {
	if len(readers) != 32 {
		return fmt.Errorf("settle readers of %s: fingerprint of %d bytes, want 32", channel, len(readers))
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO bot_audience_versions (platform, workspace, subject, readers, settled_readers)
		VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (platform, workspace, subject) DO UPDATE SET settled_readers = EXCLUDED.settled_readers`,
		platform, workspace, bot.ChannelSubject(channel), readers)
	if err != nil {
		return fmt.Errorf("settle readers of %s: %w", channel, err)
	}
	return nil
}
