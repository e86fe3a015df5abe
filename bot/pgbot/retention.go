package pgbot

import (
	"context"
	"fmt"
	"time"
)

// pruneBatch bounds the answers one expiry statement deletes, so a first prune of a large
// backlog never holds its locks for long.
const pruneBatch = 5000

// PruneReport counts what Prune removed.
type PruneReport struct {
	// Expired answers were older than the cutoff: deleted with their turns, ratings and
	// document links.
	Expired int64
	// Redacted answers lost their copies of document text and their turns (see Prune).
	Redacted int64
}

// Prune enforces the retention of answer records, which hold copies of document text (the
// answer, the rewritten query, cited titles and sections, the trace) and feed conversation
// memory through their turns:
//   - answers created before cutoff are deleted, with their turns, ratings and document links;
//   - an answer one of whose documents was deleted, or whose document's groups no longer overlap
//     the answer's scope (its audience may no longer read it), is redacted as an answer withdrawn
//     from its conversation is (redactSet): its text, query, sources, top hits and agent steps
//     are emptied, its turns deleted, and redacted_at and redaction_reason say when and why.
//     Its metadata (who, when, timings, tokens) and ratings stay, and its message in the chat
//     is left as it is (only a withdrawal edits it into a notice);
//   - source-change notices and recorded source changes older than cutoff are deleted.
//
// It returns what it removed, or an error when the database fails (what was pruned before the
// error stays pruned).
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (PruneReport, error) {
	var rep PruneReport
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM bot_answers WHERE id IN (
			SELECT id FROM bot_answers WHERE created_at < $1 ORDER BY id LIMIT $2)`, cutoff, pruneBatch)
		if err != nil {
			return rep, fmt.Errorf("delete expired answers: %w", err)
		}
		rep.Expired += tag.RowsAffected()
		if tag.RowsAffected() < pruneBatch {
			break
		}
	}
	tag, err := s.pool.Exec(ctx, redactSQL)
	if err != nil {
		return rep, fmt.Errorf("redact answers of deleted or narrowed documents: %w", err)
	}
	rep.Redacted = tag.RowsAffected()
	// What the source-change notices remember: of no use once the answers they concern expired.
	if _, err := s.pool.Exec(ctx, `DELETE FROM bot_source_notices WHERE created_at < $1`, cutoff); err != nil {
		return rep, fmt.Errorf("delete expired source notices: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM source_changes WHERE recorded_at < $1`, cutoff); err != nil {
		return rep, fmt.Errorf("delete expired source changes: %w", err)
	}
	return rep, nil
}

// redactSQL redacts, in one statement, every answer not yet redacted that used a document now
// gone or now outside the answer's scope, and deletes its turns.
const redactSQL = `
WITH stale AS (
	SELECT ad.answer_id, bool_or(d.id IS NULL) AS gone
	FROM bot_answer_documents ad
	JOIN bot_answers a ON a.id = ad.answer_id AND a.redacted_at IS NULL
	LEFT JOIN documents d ON d.id = ad.document_id
	WHERE d.id IS NULL OR NOT d.groups && a.scope_groups
	GROUP BY ad.answer_id
), turns AS (
	DELETE FROM bot_turns t USING stale WHERE t.answer_id = stale.answer_id
)
UPDATE bot_answers a SET ` + redactSet + `,
	redaction_reason = CASE WHEN stale.gone THEN 'document_deleted' ELSE 'access_narrowed' END
FROM stale WHERE a.id = stale.answer_id`

// redactSet is what every redaction sets (with redaction_reason): when, and every copy of
// document text emptied (the answer, the rewritten query, cited sources, top hits, dropped
// chunks, agent steps). The question, the user's own words, stays.
const redactSet = `redacted_at = now(), answer_text = '', standalone_query = '', sources = '[]', top_hits = '[]',
	dropped_chunk_ids = '{}', agent_steps = '[]'`
