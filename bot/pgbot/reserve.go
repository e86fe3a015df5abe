package pgbot

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
)

// ReserveAnswer implements bot.Store: the answer's row, marked not_recorded until SaveAnswer
// completes it, with the documents that reach it so far, in one transaction.
func (s *Store) ReserveAnswer(ctx context.Context, rec *bot.AnswerRecord) (int64, error) {
	c := rec.Conversation
	var id int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO bot_answers (platform, workspace, channel, thread, asker, visible_to,
			question, scope_groups, reason, lang, reply_ref, standalone_query, answer_text, abstained, abstain_reason, evidence,
			sources, top_hits, timings_ms, total_ms, model, prompt_tokens, completion_tokens, dropped_chunk_ids, cached, agent_steps, public, ephemeral)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11, '', '', false, '', 0, '[]', '[]', '{}', 0, '', 0, 0, '{}', false, '[]', $12, $13)
			RETURNING id, created_at`,
			c.Platform, c.Workspace, c.Channel, c.Thread, rec.AskerID, rec.VisibleTo, storedText(rec.Question),
			nonNil(rec.ScopeGroups), string(bot.ReasonNotRecorded), rec.Lang, rec.ReplyRef, rec.Public, rec.Ephemeral).Scan(&id, &rec.CreatedAt)
		if err != nil {
			return fmt.Errorf("insert answer: %w", err)
		}
		return addConsulted(ctx, tx, id, rec.Consulted)
	})
	if err != nil {
		return 0, fmt.Errorf("reserve answer: %w", err)
	}
	rec.ID = id
	return id, nil
}

// AddConsulted implements bot.Store.
func (s *Store) AddConsulted(ctx context.Context, answerID int64, refs []bot.SourceRef) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return addConsulted(ctx, tx, answerID, refs) })
}

// addConsulted records that refs reached answer id, with their documents' groups read from the
// documents table in the same statement (a document gone from the index keeps the groups '{}',
// so that it hides the answer from memory). A document already recorded gains the chunks.
func addConsulted(ctx context.Context, tx pgx.Tx, id int64, refs []bot.SourceRef) error {
	docIDs, chunkIDs, versions := consultedColumns(refs)
	if len(docIDs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO bot_answer_documents (answer_id, document_id, chunk_ids, doc_version, doc_groups)
		SELECT $1, u.doc_id, u.chunk_ids::bigint[], u.version, coalesce(d.groups, '{}')
		FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS u(doc_id, chunk_ids, version)
		LEFT JOIN documents d ON d.id = u.doc_id
		ON CONFLICT (answer_id, document_id) DO UPDATE SET chunk_ids = ARRAY(
			SELECT DISTINCT x FROM unnest(bot_answer_documents.chunk_ids || EXCLUDED.chunk_ids) x ORDER BY x)`,
		id, docIDs, chunkIDs, versions)
	if err != nil {
		return fmt.Errorf("insert answer documents of %d: %w", id, err)
	}
	return nil
}

// storedText is s as PostgreSQL text can hold it: valid UTF-8 without NUL.
func storedText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
