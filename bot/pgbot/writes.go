package pgbot

import (
	"context"
	"fmt"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// withdrawUnreadableSQL withdraws answer $1 when it is shown to everyone in a channel and one of
// the channel's recorded readers (bot_audience_versions.reader_scopes) may not read a document
// it depends on, as the document's groups were when the answer was given: the check made before
// and after every write of its text. A reader with no group reads nothing. A channel whose
// readers were never recorded has nothing to check against (its answer's own lookup records
// them first).
const withdrawUnreadableSQL = `
WITH target AS (
	SELECT a.id FROM bot_answers a
	JOIN bot_audience_versions v ON v.platform = a.platform AND v.workspace = a.workspace AND v.subject = 'channel:' || a.channel
	WHERE a.id = $1 AND a.visible_to = '' AND a.redacted_at IS NULL AND v.reader_scopes IS NOT NULL
	  AND EXISTS (SELECT 1 FROM bot_answer_documents ad, jsonb_array_elements(v.reader_scopes) r
		WHERE ad.answer_id = a.id AND NOT ad.doc_groups && array(SELECT jsonb_array_elements_text(r)))
), withdrawn AS (
	UPDATE bot_answers a SET ` + redactSet + `, redaction_reason = 'audience_widened'
	FROM target WHERE a.id = target.id AND a.redacted_at IS NULL
	RETURNING a.id
)
DELETE FROM bot_turns t USING withdrawn w WHERE t.answer_id = w.id`

// CheckWrite implements bot.Audiences: the readers' check (withdrawUnreadableSQL), then one
// lookup of the answer's withdrawal and its channel's doubt.
func (s *Store) CheckWrite(ctx context.Context, answerID int64) (bot.Redaction, bot.WriteCheck, error) {
	if _, err := s.pool.Exec(ctx, withdrawUnreadableSQL, answerID); err != nil {
		return bot.Redaction{}, bot.WriteAllowed, fmt.Errorf("check the readers of answer %d: %w", answerID, err)
	}
	var red bot.Redaction
	var question string
	var withdrawn, held bool
	c := &red.Conversation
	err := s.pool.QueryRow(ctx, `SELECT a.id, a.platform, a.workspace, a.channel, a.thread, a.reply_ref, a.lang, a.question, a.text_writes,
			a.redaction_reason = 'audience_widened',
			a.visible_to = '' AND a.redacted_at IS NULL AND coalesce(v.doubt_since IS NOT NULL, false)
		FROM bot_answers a
		LEFT JOIN bot_audience_versions v ON v.platform = a.platform AND v.workspace = a.workspace AND v.subject = 'channel:' || a.channel
		WHERE a.id = $1`, answerID).Scan(
		&red.AnswerID, &c.Platform, &c.Workspace, &c.Channel, &c.Thread, &red.ReplyRef, &red.Lang, &question, &red.Writes,
		&withdrawn, &held)
	switch {
	case notFound(err):
		return bot.Redaction{}, bot.WriteAllowed, nil
	case err != nil:
		return bot.Redaction{}, bot.WriteAllowed, fmt.Errorf("look up withdrawal of answer %d: %w", answerID, err)
	case withdrawn:
		if red.Lang == "" {
			red.Lang = rag.AnswerLang(question) // answers saved before the language was kept
		}
		return red, bot.WriteWithdrawn, nil
	case held:
		return bot.Redaction{}, bot.WriteHeld, nil
	}
	return bot.Redaction{}, bot.WriteAllowed, nil
}

// WithdrawAnswer implements bot.Audiences.
func (s *Store) WithdrawAnswer(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	_, err := s.pool.Exec(ctx, `WITH withdrawn AS (
			UPDATE bot_answers a SET `+redactSet+`, redaction_reason = 'audience_widened'
			WHERE a.id = $1 AND a.visible_to = '' AND a.redacted_at IS NULL
			RETURNING a.id)
		DELETE FROM bot_turns t USING withdrawn w WHERE t.answer_id = w.id`, answerID)
	if err != nil {
		return bot.Redaction{}, false, fmt.Errorf("withdraw answer %d: %w", answerID, err)
	}
	return s.loadRedaction(ctx, `SELECT `+redactionColumns+` FROM bot_answers
		WHERE id = $1 AND redaction_reason = 'audience_widened'`, answerID)
}

// AnswerWritten implements bot.Audiences: the readers' check (withdrawUnreadableSQL), then one
// statement that counts the write and marks a withdrawn answer's notice as not shown (the write
// may have covered it) and returns it.
func (s *Store) AnswerWritten(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	if _, err := s.pool.Exec(ctx, withdrawUnreadableSQL, answerID); err != nil {
		return bot.Redaction{}, false, fmt.Errorf("check the readers of answer %d: %w", answerID, err)
	}
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
