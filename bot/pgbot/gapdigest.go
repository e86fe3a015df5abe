package pgbot

import (
	"context"
	"fmt"
	"time"

	"github.com/citahq/cita/bot"
)

var _ bot.GapDigestStore = (*Store)(nil)

// ClaimGapDigest claims the digest of slot for a channel: true for the first replica to ask,
// which then posts it; since is when the channel's last digest was claimed (zero: never).
func (s *Store) ClaimGapDigest(ctx context.Context, platform, channel string, slot time.Time) (claimed bool, since time.Time, err error) {
	var last *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT max(slot) FROM gap_digests WHERE platform = $1 AND channel = $2 AND slot < $3`,
		platform, channel, slot).Scan(&last); err != nil {
		return false, time.Time{}, fmt.Errorf("claim gap digest: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO gap_digests (platform, channel, slot) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		platform, channel, slot)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("claim gap digest: %w", err)
	}
	if last != nil {
		since = *last
	}
	return tag.RowsAffected() == 1, since, nil
}

// GapDigestDone records the outcome of posting a claimed digest.
func (s *Store) GapDigestDone(ctx context.Context, platform, channel string, slot time.Time, postErr error) error {
	msg := ""
	if postErr != nil {
		msg = postErr.Error()
	}
	_, err := s.pool.Exec(ctx, `UPDATE gap_digests SET posted_at = CASE WHEN $4 = '' THEN now() END, error = $4
		WHERE platform = $1 AND channel = $2 AND slot = $3`, platform, channel, slot, msg)
	if err != nil {
		return fmt.Errorf("record gap digest: %w", err)
	}
	return nil
}
