package pgbot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
)

// RatedDown is an answer someone rated 👎, as `cita feedback export` writes it out.
type RatedDown struct {
	AnswerID        int64
	Platform        string
	Question        string
	StandaloneQuery string
	Answer          string
	Lang            string
	Abstained       bool
	ScopeGroups     []string
	Sources         []bot.SourceRef
	Down, Up        int
	Comments        []string
	AskedAt         time.Time
	RatedAt         time.Time // the latest 👎
}

// RatedDown returns, oldest first, the answers rated 👎 since since (by the time of the
// rating), with their votes and the comments given with the 👎. Redacted answers are left out
// (their text and sources are gone) and counted in redacted. It returns a database error.
func (s *Store) RatedDown(ctx context.Context, since time.Time) (out []RatedDown, redacted int, err error) {
	rows, err := s.pool.Query(ctx, `
		SELECT a.id, a.platform, a.question, a.standalone_query, a.answer_text, a.lang, a.abstained, a.scope_groups,
			a.sources, a.created_at, a.redacted_at IS NOT NULL,
			count(*) FILTER (WHERE f.rating = -1), count(*) FILTER (WHERE f.rating = 1),
			coalesce(array_agg(f.comment ORDER BY f.updated_at) FILTER (WHERE f.rating = -1 AND f.comment <> ''), '{}'),
			max(f.updated_at) FILTER (WHERE f.rating = -1)
		FROM bot_answers a JOIN bot_feedback f ON f.answer_id = a.id
		WHERE a.id IN (SELECT answer_id FROM bot_feedback WHERE rating = -1 AND updated_at >= $1)
		GROUP BY a.id
		ORDER BY max(f.updated_at) FILTER (WHERE f.rating = -1), a.id`, since)
	if err != nil {
		return nil, 0, fmt.Errorf("read rated answers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RatedDown
		var sources []byte
		var isRedacted bool
		if err := rows.Scan(&r.AnswerID, &r.Platform, &r.Question, &r.StandaloneQuery, &r.Answer, &r.Lang, &r.Abstained, &r.ScopeGroups,
			&sources, &r.AskedAt, &isRedacted, &r.Down, &r.Up, &r.Comments, &r.RatedAt); err != nil {
			return nil, 0, fmt.Errorf("read rated answers: %w", err)
		}
		if isRedacted {
			redacted++
			continue
		}
		if err := json.Unmarshal(sources, &r.Sources); err != nil {
			return nil, 0, fmt.Errorf("decode sources of answer %d: %w", r.AnswerID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read rated answers: %w", err)
	}
	return out, redacted, nil
}

// CommentFeedback stores what a user said with their rating of an answer (their 👎's "what was
// wrong"). Only the user's own rating of a standing answer of fb.Conversation.Platform takes it:
// rating it passed the visibility checks (RecordFeedback), so the comment needs no other. It
// returns bot.ErrNotVisible when the user has no such rating.
func (s *Store) CommentFeedback(ctx context.Context, fb bot.Feedback, comment string) error {
	if len(comment) > 4000 {
		comment = strings.ToValidUTF8(comment[:4000], "")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE bot_feedback f SET comment = $3, updated_at = now()
		FROM bot_answers a
		WHERE f.answer_id = $1 AND f.user_id = $2 AND a.id = f.answer_id AND a.platform = $4 AND a.redacted_at IS NULL`,
		fb.AnswerID, fb.UserID, comment, fb.Conversation.Platform)
	if err != nil {
		return fmt.Errorf("record feedback comment on answer %d: %w", fb.AnswerID, err)
	}
	if tag.RowsAffected() == 0 {
		return bot.ErrNotVisible
	}
	return nil
}
