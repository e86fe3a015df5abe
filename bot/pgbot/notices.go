package pgbot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
)

var _ bot.NoticeStore = (*Store)(nil)

// noticeWindow bounds how old a recorded change may be for a notice: changes recorded while no
// notifier ran (no `cita serve`) are not announced days later.
const noticeWindow = 24 * time.Hour

// claimChangesSQL takes the pending changes ($1: the oldest recorded time still announced) and
// returns, for each, the answers shown to everyone on the platforms $2 that cited an older
// version of the document (any version of a deleted one) and after which no notice reported
// it in their thread. The audience rule is computed here: nameable says whether the thread may
// be told the document's title (the answer stands, and the document, as it is now or as it was
// when deleted, still overlaps the answer's scope).
const claimChangesSQL = `
WITH pending AS (
	UPDATE source_changes SET claimed_at = now()
	WHERE id IN (SELECT id FROM source_changes WHERE claimed_at IS NULL ORDER BY id LIMIT 10000 FOR UPDATE SKIP LOCKED)
	RETURNING run_id, document_id, kind, doc_version, changed_at, recorded_at
)
SELECT p.run_id, p.document_id, p.kind, p.changed_at, a.id, a.platform, a.workspace, a.channel, a.thread, a.lang,
	a.sources,
	a.redacted_at IS NULL AND CASE WHEN p.kind = 'updated' THEN coalesce(d.groups && a.scope_groups, false)
		ELSE ad.doc_groups && a.scope_groups END AS nameable,
	CASE WHEN p.kind = 'updated' THEN coalesce(d.groups, '{}') ELSE ad.doc_groups END AS groups, a.asker
FROM pending p
JOIN bot_answer_documents ad ON ad.document_id = p.document_id AND (p.doc_version IS NULL OR ad.doc_version < p.doc_version)
JOIN bot_answers a ON a.id = ad.answer_id
LEFT JOIN documents d ON d.id = p.document_id
WHERE p.recorded_at >= $1 AND a.platform = ANY($2)
  AND NOT a.ephemeral AND NOT a.abstained AND a.reason = '' AND a.redaction_reason <> 'audience_widened'
  -- only documents the answer cited: one it read without citing is not what the thread was told
  AND a.sources @> jsonb_build_array(jsonb_build_object('document_id', p.document_id))
  AND NOT EXISTS (SELECT 1 FROM bot_source_notices n
	WHERE n.platform = a.platform AND n.workspace = a.workspace AND n.channel = a.channel AND n.thread = a.thread
	  AND p.document_id = ANY(n.document_ids) AND n.created_at > a.created_at)
ORDER BY p.run_id, a.platform, a.workspace, a.channel, a.thread, p.document_id, a.id`

// ClaimSourceNotices implements bot.NoticeStore: in one transaction it takes the pending
// changes, groups the answers that cited them into one notice per thread and pass (the
// document's title and the thread's language from the latest citing answer), and records each
// notice in bot_source_notices; a notice another notifier recorded first is left to it.
func (s *Store) ClaimSourceNotices(ctx context.Context, platforms []string) ([]bot.SourceNotice, error) {
	var out []bot.SourceNotice
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, claimChangesSQL, time.Now().Add(-noticeWindow), platforms)
		if err != nil {
			return fmt.Errorf("claim source changes: %w", err)
		}
		notices, err := groupNotices(rows)
		if err != nil {
			return err
		}
		for _, n := range notices {
			docs := make([]int64, len(n.Changes))
			for i, c := range n.Changes {
				docs[i] = c.DocumentID
			}
			c := n.Conversation
			tag, err := tx.Exec(ctx, `INSERT INTO bot_source_notices (run_id, platform, workspace, channel, thread, document_ids)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, n.RunID, c.Platform, c.Workspace, c.Channel, c.Thread, docs)
			if err != nil {
				return fmt.Errorf("record source notice: %w", err)
			}
			if tag.RowsAffected() == 1 {
				out = append(out, n)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// groupNotices folds the claimed rows (ordered by run, conversation, document, answer) into
// notices; for each document the latest citing answer decides its title and whether it is named.
func groupNotices(rows pgx.Rows) ([]bot.SourceNotice, error) {
	var out []bot.SourceNotice
	defer rows.Close()
	for rows.Next() {
		var (
			n        bot.SourceNotice
			ch       bot.SourceChange
			answerID int64
			sources  []byte
			nameable bool
		)
		c := &n.Conversation
		if err := rows.Scan(&n.RunID, &ch.DocumentID, &ch.Kind, &ch.At, &answerID, &c.Platform, &c.Workspace, &c.Channel, &c.Thread,
			&n.Lang, &sources, &nameable, &ch.Groups, &n.Asker); err != nil {
			return nil, fmt.Errorf("read source changes: %w", err)
		}
		if nameable {
			ch.Title = citedTitle(sources, ch.DocumentID)
		}
		last := len(out) - 1
		if last < 0 || out[last].RunID != n.RunID || out[last].Conversation != n.Conversation {
			n.Changes = []bot.SourceChange{ch}
			out = append(out, n)
			continue
		}
		out[last].Lang, out[last].Asker = n.Lang, n.Asker // rows come in answer order: the latest answer's wins
		changes := out[last].Changes
		if i := len(changes) - 1; changes[i].DocumentID == ch.DocumentID {
			changes[i] = ch // a later answer citing the same document decides
		} else {
			out[last].Changes = append(changes, ch)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read source changes: %w", err)
	}
	for i := range out {
		slices.SortFunc(out[i].Changes, func(a, b bot.SourceChange) int { return a.At.Compare(b.At) })
	}
	return out, nil
}

// citedTitle returns the title under which an answer's sources showed the document ("" when
// the sources no longer hold it: a redacted answer).
func citedTitle(sources []byte, documentID int64) string {
	var refs []bot.SourceRef
	if json.Unmarshal(sources, &refs) != nil {
		return ""
	}
	for _, r := range refs {
		if r.DocumentID == documentID {
			return firstNonEmpty(r.Title, r.Path)
		}
	}
	return ""
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// SourceNoticeDone implements bot.NoticeStore.
func (s *Store) SourceNoticeDone(ctx context.Context, n bot.SourceNotice, postErr error) error {
	c := n.Conversation
	msg := ""
	if postErr != nil {
		msg = postErr.Error()
	}
	_, err := s.pool.Exec(ctx, `UPDATE bot_source_notices SET posted_at = CASE WHEN $6 = '' THEN now() END, error = $6
		WHERE run_id = $1 AND platform = $2 AND workspace = $3 AND channel = $4 AND thread = $5`,
		n.RunID, c.Platform, c.Workspace, c.Channel, c.Thread, msg)
	if err != nil {
		return fmt.Errorf("record source notice of run %d: %w", n.RunID, err)
	}
	return nil
}
