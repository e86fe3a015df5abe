package pgbot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// RecordReaders implements bot.Audiences in one transaction that locks the channel's row: two
// replicas recording the same readers bump the version once, and readers read before a change
// another replica recorded (a joiner, a doubt) are refused with bot.ErrReadersMoved instead of
// replacing it.
func (s *Store) RecordReaders(ctx context.Context, platform, workspace, channel string, readers []rag.Scope, expected int64) (bool, int64, error) {
	readers = bot.DistinctScopes(readers)
	fingerprint := bot.ReadersFingerprint(readers)
	scopes, err := encodeScopes(readers)
	if err != nil {
		return false, 0, fmt.Errorf("record readers of %s: %w", channel, err)
	}
	subject := bot.ChannelSubject(channel)
	var changed bool
	var version int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO bot_audience_versions (platform, workspace, subject, readers, reader_scopes)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING version`,
			platform, workspace, subject, fingerprint, scopes).Scan(&version)
		if err == nil {
			changed = true
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var recorded []byte
		var known, doubt bool
		err = tx.QueryRow(ctx, `SELECT version, readers, reader_scopes IS NOT NULL, doubt_since IS NOT NULL FROM bot_audience_versions
			WHERE platform = $1 AND workspace = $2 AND subject = $3 FOR UPDATE`, platform, workspace, subject).Scan(&version, &recorded, &known, &doubt)
		if err != nil {
			return err
		}
		same := known && bytes.Equal(recorded, fingerprint)
		switch {
		case same && !doubt:
			return nil // nothing to record
		case version != expected:
			return bot.ErrReadersMoved
		}
		changed = !same
		return tx.QueryRow(ctx, `UPDATE bot_audience_versions
			SET readers = $4, reader_scopes = $5, doubt_since = NULL,
				version = version + CASE WHEN $6 THEN 1 ELSE 0 END, changed_at = CASE WHEN $6 THEN now() ELSE changed_at END
			WHERE platform = $1 AND workspace = $2 AND subject = $3 RETURNING version`,
			platform, workspace, subject, fingerprint, scopes, changed).Scan(&version)
	})
	if errors.Is(err, bot.ErrReadersMoved) {
		return false, 0, fmt.Errorf("record readers of %s: %w", channel, err)
	}
	if err != nil {
		return false, 0, fmt.Errorf("record readers of %s: %w", channel, err)
	}
	return changed, version, nil
}

// AddReader implements bot.Audiences in one transaction: the joiner's row, and the channel's
// recorded readers with the scope added (a channel never recorded gets this one reader: a
// partial list that the next lookup completes).
func (s *Store) AddReader(ctx context.Context, platform, workspace, channel, userID string, scope rag.Scope) (int64, error) {
	subject := bot.ChannelSubject(channel)
	var version int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if userID != "" {
			_, err := tx.Exec(ctx, `INSERT INTO bot_channel_joiners (platform, workspace, channel, user_id) VALUES ($1, $2, $3, $4)
				ON CONFLICT (platform, workspace, channel, user_id) DO UPDATE SET joined_at = now()`, platform, workspace, channel, userID)
			if err != nil {
				return fmt.Errorf("record joiner: %w", err)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO bot_audience_versions (platform, workspace, subject) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, platform, workspace, subject)
		if err != nil {
			return err
		}
		var raw []byte
		err = tx.QueryRow(ctx, `SELECT reader_scopes FROM bot_audience_versions
			WHERE platform = $1 AND workspace = $2 AND subject = $3 FOR UPDATE`, platform, workspace, subject).Scan(&raw)
		if err != nil {
			return err
		}
		readers, err := decodeScopes(raw)
		if err != nil {
			return err
		}
		readers = bot.DistinctScopes(append(readers, scope))
		scopes, err := encodeScopes(readers)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `UPDATE bot_audience_versions
			SET reader_scopes = $4, readers = $5, version = version + 1, changed_at = now()
			WHERE platform = $1 AND workspace = $2 AND subject = $3 RETURNING version`,
			platform, workspace, subject, scopes, bot.ReadersFingerprint(readers)).Scan(&version)
	})
	if err != nil {
		return 0, fmt.Errorf("add a reader to %s: %w", channel, err)
	}
	return version, nil
}

// ChannelJoiners implements bot.Audiences; joiners older than ttl are deleted on the way.
func (s *Store) ChannelJoiners(ctx context.Context, platform, workspace, channel string, ttl time.Duration) ([]bot.Joiner, error) {
	rows, err := s.pool.Query(ctx, `WITH expired AS (
			DELETE FROM bot_channel_joiners WHERE platform = $1 AND workspace = $2 AND channel = $3
				AND joined_at < now() - $4::interval)
		SELECT user_id, joined_at FROM bot_channel_joiners WHERE platform = $1 AND workspace = $2 AND channel = $3
			AND joined_at >= now() - $4::interval
		ORDER BY user_id`, platform, workspace, channel, ttl)
	if err != nil {
		return nil, fmt.Errorf("read joiners of %s: %w", channel, err)
	}
	joiners, err := pgx.CollectRows(rows, pgx.RowToStructByPos[bot.Joiner])
	if err != nil {
		return nil, fmt.Errorf("read joiners of %s: %w", channel, err)
	}
	return joiners, nil
}

// ForgetJoiners implements bot.Audiences.
func (s *Store) ForgetJoiners(ctx context.Context, platform, workspace, channel string, users []string) error {
	if len(users) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM bot_channel_joiners WHERE platform = $1 AND workspace = $2 AND channel = $3
		AND user_id = ANY($4::text[])`, platform, workspace, channel, users)
	if err != nil {
		return fmt.Errorf("forget joiners of %s: %w", channel, err)
	}
	return nil
}

// MarkDoubt implements bot.Audiences with one upsert; a channel already in doubt keeps the
// time its doubt began.
func (s *Store) MarkDoubt(ctx context.Context, platform, workspace string, channels ...string) error {
	if len(channels) == 0 {
		return nil
	}
	subjects := make([]string, len(channels))
	for i, c := range channels {
		subjects[i] = bot.ChannelSubject(c)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO bot_audience_versions (platform, workspace, subject, doubt_since)
		SELECT $1, $2, unnest($3::text[]), now()
		ON CONFLICT (platform, workspace, subject) DO UPDATE
		SET version = bot_audience_versions.version + 1, changed_at = now(),
			doubt_since = coalesce(bot_audience_versions.doubt_since, now())`, platform, workspace, subjects)
	if err != nil {
		return fmt.Errorf("mark the readers of %d channels in doubt: %w", len(channels), err)
	}
	return nil
}

// encodeScopes is the reader_scopes column of readers: a JSON array of group arrays ([] for a
// reader who reads nothing).
func encodeScopes(readers []rag.Scope) ([]byte, error) {
	groups := make([][]string, 0, len(readers))
	for _, r := range readers {
		groups = append(groups, nonNil(r.Groups()))
	}
	return json.Marshal(groups)
}

// decodeScopes reads a reader_scopes column; NULL is no reader.
func decodeScopes(raw []byte) ([]rag.Scope, error) {
	if raw == nil {
		return nil, nil
	}
	var groups [][]string
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, fmt.Errorf("decode reader scopes: %w", err)
	}
	out := make([]rag.Scope, 0, len(groups))
	for _, g := range groups {
		if len(g) == 0 {
			out = append(out, rag.Scope{})
			continue
		}
		sc, err := rag.NewScope(g...)
		if err != nil {
			return nil, fmt.Errorf("decode reader scopes: %w", err)
		}
		out = append(out, sc)
	}
	return out, nil
}
