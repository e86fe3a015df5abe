package pgbot

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
)

// SaveAnswer implements bot.Store. The documents' groups are read from the documents table in
// the same statement, so memory visibility never depends on what the caller claims.
func (s *Store) SaveAnswer(ctx context.Context, rec *bot.AnswerRecord) (int64, error) {
	sources, err := json.Marshal(nonNil(rec.Sources))
	if err != nil {
		return 0, fmt.Errorf("encode sources: %w", err)
	}
	hits, err := json.Marshal(nonNil(rec.TopHits))
	if err != nil {
		return 0, fmt.Errorf("encode top hits: %w", err)
	}
	timings := map[string]float64{}
	for k, v := range rec.Timings {
		timings[k] = float64(v.Microseconds()) / 1000
	}
	timingsJSON, _ := json.Marshal(timings) // a map of floats always encodes
	steps, err := json.Marshal(nonNil(rec.Steps))
	if err != nil {
		return 0, fmt.Errorf("encode agent steps: %w", err)
	}
	c := rec.Conversation
	question, standalone, text := storedText(rec.Question), storedText(rec.StandaloneQuery), storedText(rec.Text)
	id, shown := rec.ID, true
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if id == 0 {
			err = tx.QueryRow(ctx, `INSERT INTO bot_answers (platform, workspace, channel, thread, asker, visible_to,
			question, standalone_query, answer_text, scope_groups, abstained, abstain_reason, reason, evidence,
			sources, top_hits, timings_ms, total_ms, model, prompt_tokens, completion_tokens, dropped_chunk_ids, cached, lang, reply_ref,
			agent_steps, public, ephemeral, hedged, hedge_reason, min_evidence, confident_evidence)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,
				$29,$30,$31,$32) RETURNING id, created_at`,
				c.Platform, c.Workspace, c.Channel, c.Thread, rec.AskerID, rec.VisibleTo,
				question, standalone, text, nonNil(rec.ScopeGroups), rec.Abstained, rec.AbstainReason,
				string(rec.Reason), rec.Evidence, sources, hits, timingsJSON, float64(rec.Total.Microseconds())/1000,
				rec.Model, rec.PromptTokens, rec.CompletionTokens, nonNilIDs(rec.Dropped), rec.Cached, rec.Lang, rec.ReplyRef,
				steps, rec.Public, rec.Ephemeral, rec.Hedged, rec.HedgeReason, rec.MinEvidence, rec.ConfidentEvidence).Scan(&id, &rec.CreatedAt)
		} else {
			// Completing a reservation (ReserveAnswer): an answer withdrawn meanwhile stays
			// redacted, and gets no turns.
			err = tx.QueryRow(ctx, `UPDATE bot_answers SET standalone_query = $2, answer_text = $3, abstained = $4,
				abstain_reason = $5, reason = $6, evidence = $7, sources = $8, top_hits = $9, timings_ms = $10, total_ms = $11,
				model = $12, prompt_tokens = $13, completion_tokens = $14, dropped_chunk_ids = $15, cached = $16, lang = $17,
				agent_steps = $18, hedged = $19, hedge_reason = $20, min_evidence = $21, confident_evidence = $22
				WHERE id = $1 AND redacted_at IS NULL RETURNING created_at`,
				id, standalone, text, rec.Abstained, rec.AbstainReason, string(rec.Reason), rec.Evidence, sources, hits,
				timingsJSON, float64(rec.Total.Microseconds())/1000, rec.Model, rec.PromptTokens, rec.CompletionTokens,
				nonNilIDs(rec.Dropped), rec.Cached, rec.Lang, steps, rec.Hedged, rec.HedgeReason, rec.MinEvidence,
				rec.ConfidentEvidence).Scan(&rec.CreatedAt)
			if notFound(err) {
				err, shown = nil, false
			}
		}
		if err != nil {
			return fmt.Errorf("insert answer: %w", err)
		}
		if err := addConsulted(ctx, tx, id, rec.Consulted); err != nil {
			return err
		}
		if rec.Ephemeral || !shown {
			return nil // an ephemeral reply is not part of the thread, nor a withdrawn one
		}
		scopeKey := joinGroups(rec.ScopeGroups)
		_, err = tx.Exec(ctx, `INSERT INTO bot_turns (platform, workspace, channel, thread, role, author, body, scope_key, answer_id)
			VALUES ($1,$2,$3,$4,'user',$5,$6,$8,$9), ($1,$2,$3,$4,'assistant','',$7,$8,$9)`,
			c.Platform, c.Workspace, c.Channel, c.Thread, rec.AskerID, question, text, scopeKey, id)
		if err != nil {
			return fmt.Errorf("insert turns: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("save answer: %w", err)
	}
	rec.ID = id
	return id, nil
}

// consultedColumns groups consulted chunks by document: ids, chunk id arrays as text
// ("{1,2}", since unnest cannot take a ragged 2-D array) and versions.
func consultedColumns(refs []bot.SourceRef) (docIDs []int64, chunkIDs []string, versions []int64) {
	index := map[int64]int{}
	var chunks [][]int64
	for _, r := range refs {
		i, ok := index[r.DocumentID]
		if !ok {
			i = len(docIDs)
			index[r.DocumentID] = i
			docIDs = append(docIDs, r.DocumentID)
			versions = append(versions, r.DocVersion)
			chunks = append(chunks, nil)
		}
		chunks[i] = append(chunks[i], r.ChunkID)
	}
	for _, c := range chunks {
		s := "{"
		for j, id := range c {
			if j > 0 {
				s += ","
			}
			s += fmt.Sprint(id)
		}
		chunkIDs = append(chunkIDs, s+"}")
	}
	return docIDs, chunkIDs, versions
}

// LoadAnswer returns the whole record of answer id, or bot.ErrAnswerNotFound, with no access
// check: for tests and operators' audits only. Whatever is shown to a chat user is loaded with
// LoadTrace.
func (s *Store) LoadAnswer(ctx context.Context, id int64) (*bot.AnswerRecord, error) {
	rec := &bot.AnswerRecord{ID: id}
	var sources, hits, timings, steps []byte
	var reason string
	var totalMS float64
	var redactedAt *time.Time
	c := &rec.Conversation
	err := s.pool.QueryRow(ctx, `SELECT platform, workspace, channel, thread, asker, visible_to, question,
		standalone_query, answer_text, scope_groups, abstained, abstain_reason, reason, evidence, sources, top_hits,
		timings_ms, total_ms, model, prompt_tokens, completion_tokens, created_at, dropped_chunk_ids, cached,
		lang, reply_ref, redacted_at, redaction_reason, agent_steps, ephemeral, hedged, hedge_reason, min_evidence,
		confident_evidence
		FROM bot_answers WHERE id = $1`, id).Scan(&c.Platform, &c.Workspace, &c.Channel, &c.Thread, &rec.AskerID,
		&rec.VisibleTo, &rec.Question, &rec.StandaloneQuery, &rec.Text, &rec.ScopeGroups, &rec.Abstained,
		&rec.AbstainReason, &reason, &rec.Evidence, &sources, &hits, &timings, &totalMS, &rec.Model,
		&rec.PromptTokens, &rec.CompletionTokens, &rec.CreatedAt, &rec.Dropped, &rec.Cached,
		&rec.Lang, &rec.ReplyRef, &redactedAt, &rec.Redaction, &steps, &rec.Ephemeral, &rec.Hedged, &rec.HedgeReason,
		&rec.MinEvidence, &rec.ConfidentEvidence)
	if notFound(err) {
		return nil, bot.ErrAnswerNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load answer %d: %w", id, err)
	}
	if redactedAt != nil {
		rec.RedactedAt = *redactedAt
	}
	rec.Reason = bot.Reason(reason)
	rec.Total = time.Duration(totalMS * float64(time.Millisecond))
	if err := decodeRecordJSON(rec, sources, hits, timings, steps); err != nil {
		return nil, err
	}
	return rec, nil
}

// SetReplyRef implements bot.Store.
func (s *Store) SetReplyRef(ctx context.Context, id int64, ref string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE bot_answers SET reply_ref = $2 WHERE id = $1`, id, ref); err != nil {
		return fmt.Errorf("record message of answer %d: %w", id, err)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func joinGroups(groups []string) string {
	out := ""
	for i, g := range groups {
		if i > 0 {
			out += ","
		}
		out += g
	}
	return out
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
