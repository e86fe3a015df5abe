package pgbot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/citahq/cita/bot"
)

// traceSQL loads an answer for a viewer ($6 user, $7 groups) acting from a conversation ($2-$5),
// with the whole access check in its WHERE (bot.Store.LoadTrace): the same conversation, not
// someone else's ephemeral reply, a scope the viewer shares, and every document the answer used
// readable by the viewer as it was then and as it is now (a deleted document hides the answer,
// as it hides the turn from memory), and not redacted (withdrawn or pruned: redacted_at). Only
// the answer's groups the viewer holds are returned, uncited hits keep their ranks and score
// only, and agent steps keep their queries and documents only for a viewer holding every group
// of the answer's scope (the agent searched with all of them).
const traceSQL = `
SELECT a.platform, a.workspace, a.channel, a.thread, a.asker, a.visible_to, a.question, a.standalone_query,
	a.answer_text,
	ARRAY(SELECT g FROM unnest(a.scope_groups) g WHERE g = ANY($7::text[]) ORDER BY g),
	(SELECT count(*)::int FROM unnest(a.scope_groups) g WHERE NOT g = ANY($7::text[])),
	a.abstained, a.abstain_reason, a.reason, a.evidence, a.sources,
	(SELECT coalesce(jsonb_agg(
			CASE WHEN h->>'cited' = 'true' THEN h
			ELSE jsonb_strip_nulls(jsonb_build_object('score', h->'score', 'fts_rank', h->'fts_rank', 'vector_rank', h->'vector_rank'))
			END ORDER BY t.ord), '[]'::jsonb)
		FROM jsonb_array_elements(a.top_hits) WITH ORDINALITY AS t(h, ord)),
	a.timings_ms, a.total_ms, a.model, a.prompt_tokens, a.completion_tokens, a.created_at, a.cached,
	CASE WHEN a.scope_groups <@ $7::text[] THEN a.agent_steps
	ELSE (SELECT coalesce(jsonb_agg(st - 'query' - 'document_id' - 'chunk_ids' ORDER BY t.ord), '[]'::jsonb)
		FROM jsonb_array_elements(a.agent_steps) WITH ORDINALITY AS t(st, ord))
	END,
	a.hedged, a.hedge_reason, a.min_evidence, a.confident_evidence
FROM bot_answers a
WHERE a.id = $1 AND a.platform = $2 AND a.workspace = $3 AND a.channel = $4 AND a.thread = $5
	AND a.redacted_at IS NULL
	AND (a.visible_to = '' OR a.visible_to = $6)
	AND a.scope_groups && $7::text[]
	AND NOT EXISTS (
		SELECT 1 FROM bot_answer_documents ad
		LEFT JOIN documents d ON d.id = ad.document_id
		WHERE ad.answer_id = a.id
		  AND (NOT ad.doc_groups && $7::text[] OR d.id IS NULL OR NOT d.groups && $7::text[]))`

// LoadTrace implements bot.Store.
func (s *Store) LoadTrace(ctx context.Context, id int64, viewer bot.Viewer) (*bot.AnswerRecord, error) {
	if viewer.Scope.Empty() || viewer.UserID == "" {
		return nil, s.whyNotVisible(ctx, id, viewer)
	}
	rec := &bot.AnswerRecord{ID: id}
	var sources, hits, timings, steps []byte
	var reason string
	var totalMS float64
	c, v := &rec.Conversation, viewer.Conversation
	err := s.pool.QueryRow(ctx, traceSQL, id, v.Platform, v.Workspace, v.Channel, v.Thread, viewer.UserID, viewer.Scope.Groups()).Scan(
		&c.Platform, &c.Workspace, &c.Channel, &c.Thread, &rec.AskerID, &rec.VisibleTo, &rec.Question, &rec.StandaloneQuery,
		&rec.Text, &rec.ScopeGroups, &rec.OtherGroups, &rec.Abstained, &rec.AbstainReason, &reason, &rec.Evidence, &sources,
		&hits, &timings, &totalMS, &rec.Model, &rec.PromptTokens, &rec.CompletionTokens, &rec.CreatedAt, &rec.Cached, &steps,
		&rec.Hedged, &rec.HedgeReason, &rec.MinEvidence, &rec.ConfidentEvidence)
	if notFound(err) {
		return nil, s.whyNotVisible(ctx, id, viewer)
	}
	if err != nil {
		return nil, fmt.Errorf("load trace of answer %d: %w", id, err)
	}
	rec.Reason = bot.Reason(reason)
	rec.Total = time.Duration(totalMS * float64(time.Millisecond))
	if err := decodeRecordJSON(rec, sources, hits, timings, steps); err != nil {
		return nil, err
	}
	return rec, nil
}

// whyNotVisible says why viewer may not see answer id: bot.ErrAnswerNotFound when there is no
// such answer, bot.ErrWithdrawn when it was withdrawn from the conversation viewer acts from
// (whose every reader was shown the notice), bot.ErrNotVisible otherwise; or a database error.
func (s *Store) whyNotVisible(ctx context.Context, id int64, viewer bot.Viewer) error {
	var inConversation bool
	var reason string
	v := viewer.Conversation
	err := s.pool.QueryRow(ctx, `SELECT platform = $2 AND workspace = $3 AND channel = $4 AND thread = $5
			AND (visible_to = '' OR visible_to = $6), redaction_reason
		FROM bot_answers WHERE id = $1`, id, v.Platform, v.Workspace, v.Channel, v.Thread, viewer.UserID).Scan(&inConversation, &reason)
	switch {
	case notFound(err):
		return bot.ErrAnswerNotFound
	case err != nil:
		return fmt.Errorf("look up answer %d: %w", id, err)
	case inConversation && bot.RedactionReason(reason) == bot.RedactionAudience:
		return bot.ErrWithdrawn
	}
	return bot.ErrNotVisible
}

// decodeRecordJSON fills the record's sources, top hits, timings and agent steps from their
// jsonb columns.
func decodeRecordJSON(rec *bot.AnswerRecord, sources, hits, timings, steps []byte) error {
	if err := json.Unmarshal(sources, &rec.Sources); err != nil {
		return fmt.Errorf("decode sources of answer %d: %w", rec.ID, err)
	}
	if err := json.Unmarshal(hits, &rec.TopHits); err != nil {
		return fmt.Errorf("decode top hits of answer %d: %w", rec.ID, err)
	}
	if err := json.Unmarshal(steps, &rec.Steps); err != nil {
		return fmt.Errorf("decode agent steps of answer %d: %w", rec.ID, err)
	}
	if len(rec.Steps) == 0 {
		rec.Steps = nil
	}
	ms := map[string]float64{}
	if err := json.Unmarshal(timings, &ms); err != nil {
		return fmt.Errorf("decode timings of answer %d: %w", rec.ID, err)
	}
	rec.Timings = map[string]time.Duration{}
	for k, v := range ms {
		rec.Timings[k] = time.Duration(v * float64(time.Millisecond))
	}
	return nil
}
