package pgbot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// BumpAudience implements bot.Audiences: one upsert per call, every subject's version + 1.
func (s *Store) BumpAudience(ctx context.Context, platform, workspace string, subjects ...string) error {
	if len(subjects) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO bot_audience_versions (platform, workspace, subject)
		SELECT $1, $2, unnest($3::text[])
		ON CONFLICT (platform, workspace, subject)
		DO UPDATE SET version = bot_audience_versions.version + 1, changed_at = now()`, platform, workspace, subjects)
	if err != nil {
		return fmt.Errorf("bump audience versions of %s %s: %w", platform, workspace, err)
	}
	return nil
}

// AudienceStates implements bot.Audiences with one primary-key lookup per subject.
func (s *Store) AudienceStates(ctx context.Context, platform, workspace string, subjects ...string) ([]bot.AudienceState, error) {
	out := make([]bot.AudienceState, len(subjects))
	if len(subjects) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT subject, version, settled_readers, readers, doubt_since IS NOT NULL FROM bot_audience_versions
		WHERE platform = $1 AND workspace = $2 AND subject = ANY($3::text[])`, platform, workspace, subjects)
	if err != nil {
		return nil, fmt.Errorf("read audience versions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var subject string
		var st bot.AudienceState
		if err := rows.Scan(&subject, &st.Version, &st.Readers, &st.Recorded, &st.Doubt); err != nil {
			return nil, fmt.Errorf("read audience versions: %w", err)
		}
		for i, want := range subjects {
			if want == subject {
				out[i] = st
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read audience versions: %w", err)
	}
	return out, nil
}

// withdrawSQL withdraws, in one statement, the channel's shown answers that used a document one
// of the readers ($4, a JSON array of group arrays) may not read, as the document's groups were
// when the answer was given, redacting them as retention does (redactSet) and deleting their
// turns, and returns them together with those withdrawn earlier whose notice is not shown yet.
// A reader with no group reads nothing.
const withdrawSQL = `
WITH readers AS (
	SELECT array(SELECT jsonb_array_elements_text(r)) AS groups
	FROM jsonb_array_elements($4::jsonb) r
), withdrawn AS (
	UPDATE bot_answers a SET ` + redactSet + `, redaction_reason = 'audience_widened'
	WHERE a.platform = $1 AND a.workspace = $2 AND a.channel = $3 AND NOT a.ephemeral AND a.redacted_at IS NULL
	  AND EXISTS (SELECT 1 FROM bot_answer_documents ad, readers r
		WHERE ad.answer_id = a.id AND NOT ad.doc_groups && r.groups)
	RETURNING a.id, a.thread, a.reply_ref, a.lang, a.question, a.text_writes
), turns AS (
	DELETE FROM bot_turns t USING withdrawn w WHERE t.answer_id = w.id
)
SELECT id, thread, reply_ref, lang, question, text_writes FROM withdrawn
UNION
` + pendingSQL

// pendingSQL returns the channel's withdrawn answers whose notice is not shown yet (a partial
// index keeps it cheap enough for every question). Answers redacted by retention are not
// withdrawn: their messages stay as they are.
const pendingSQL = `
SELECT id, thread, reply_ref, lang, question, text_writes FROM bot_answers
WHERE platform = $1 AND workspace = $2 AND channel = $3 AND redacted_at IS NOT NULL AND NOT redaction_shown
	AND redaction_reason = 'audience_widened'
ORDER BY id`

// RedactUnreadable implements bot.Audiences.
func (s *Store) RedactUnreadable(ctx context.Context, platform, workspace, channel string, readers []rag.Scope) ([]bot.Redaction, error) {
	if len(readers) == 0 {
		rows, err := s.pool.Query(ctx, pendingSQL, platform, workspace, channel)
		if err != nil {
			return nil, fmt.Errorf("load pending notices in %s: %w", channel, err)
		}
		return collectRedactions(rows, platform, workspace, channel)
	}
	groups := make([][]string, 0, len(readers))
	for _, r := range bot.DistinctScopes(readers) {
		groups = append(groups, nonNil(r.Groups()))
	}
	raw, err := json.Marshal(groups)
	if err != nil {
		return nil, fmt.Errorf("encode readers: %w", err)
	}
	rows, err := s.pool.Query(ctx, withdrawSQL, platform, workspace, channel, raw)
	if err != nil {
		return nil, fmt.Errorf("withdraw unreadable answers in %s: %w", channel, err)
	}
	return collectRedactions(rows, platform, workspace, channel)
}

func collectRedactions(rows pgx.Rows, platform, workspace, channel string) ([]bot.Redaction, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.Redaction, error) {
		red := bot.Redaction{Conversation: bot.ConversationKey{Platform: platform, Workspace: workspace, Channel: channel}}
		var question string
		err := r.Scan(&red.AnswerID, &red.Conversation.Thread, &red.ReplyRef, &red.Lang, &question, &red.Writes)
		if red.Lang == "" {
			red.Lang = rag.AnswerLang(question) // answers saved before the language was kept
		}
		return red, err
	})
	if err != nil {
		return nil, fmt.Errorf("withdraw unreadable answers in %s: %w", channel, err)
	}
	return out, nil
}

// RedactionShown implements bot.Audiences: only while no write of the answer's text was
// recorded since red was loaded.
func (s *Store) RedactionShown(ctx context.Context, red bot.Redaction) error {
	_, err := s.pool.Exec(ctx, `UPDATE bot_answers SET redaction_shown = true
		WHERE id = $1 AND redaction_reason = 'audience_widened' AND text_writes = $2`, red.AnswerID, red.Writes)
	if err != nil {
		return fmt.Errorf("record notice of answer %d: %w", red.AnswerID, err)
	}
	return nil
}

// PendingRedaction implements bot.Audiences.
func (s *Store) PendingRedaction(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	return s.loadRedaction(ctx, `SELECT `+redactionColumns+` FROM bot_answers
		WHERE id = $1 AND redaction_reason = 'audience_widened' AND NOT redaction_shown`, answerID)
}

// redactionColumns are what loadRedaction scans, in order.
const redactionColumns = `id, platform, workspace, channel, thread, reply_ref, lang, question, text_writes`

// loadRedaction runs query (one row of redactionColumns for answerID, or none) and returns the
// notice it describes; ok is false when there is no row.
func (s *Store) loadRedaction(ctx context.Context, query string, answerID int64) (bot.Redaction, bool, error) {
	var red bot.Redaction
	var question string
	c := &red.Conversation
	err := s.pool.QueryRow(ctx, query, answerID).Scan(
		&red.AnswerID, &c.Platform, &c.Workspace, &c.Channel, &c.Thread, &red.ReplyRef, &red.Lang, &question, &red.Writes)
	if notFound(err) {
		return bot.Redaction{}, false, nil
	}
	if err != nil {
		return bot.Redaction{}, false, fmt.Errorf("look up withdrawal of answer %d: %w", answerID, err)
	}
	if red.Lang == "" {
		red.Lang = rag.AnswerLang(question)
	}
	return red, true, nil
}

// ChannelsWithAnswers implements bot.Audiences, from the index of shown answers.
func (s *Store) ChannelsWithAnswers(ctx context.Context, platform, workspace string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT channel FROM bot_answers
		WHERE platform = $1 AND workspace = $2 AND NOT ephemeral AND redacted_at IS NULL
		ORDER BY channel`, platform, workspace)
	if err != nil {
		return nil, fmt.Errorf("list channels with answers in %s %s: %w", platform, workspace, err)
	}
	channels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list channels with answers in %s %s: %w", platform, workspace, err)
	}
	return channels, nil
}

// PublicChannels implements bot.Audiences, from the index of shown answers.
func (s *Store) PublicChannels(ctx context.Context, platform, workspace string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT channel FROM bot_answers
		WHERE platform = $1 AND workspace = $2 AND visible_to = '' AND redacted_at IS NULL AND public
		ORDER BY channel`, platform, workspace)
	if err != nil {
		return nil, fmt.Errorf("list public channels with answers in %s %s: %w", platform, workspace, err)
	}
	channels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list public channels with answers in %s %s: %w", platform, workspace, err)
	}
	return channels, nil
}
