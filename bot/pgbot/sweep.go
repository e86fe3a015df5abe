package pgbot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
)

// claimSweepSQL takes the sweep $1 for holder $2 until now + $3 ms, when nobody holds it (or
// its holder's time ran out), it did not complete within the last $4 ms and did not start
// within the last $5 ms (a failed run is retried sooner than a complete one is repeated). Two
// replicas claiming at once: the second waits for the first's row lock and then finds the row
// held, so exactly one gets a row back.
const claimSweepSQL = `
INSERT INTO bot_sweeps AS s (name, holder, held_until, started_at)
VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond', now())
ON CONFLICT (name) DO UPDATE
	SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until, started_at = now()
	WHERE s.held_until < now()
	  AND coalesce(s.completed_at, '-infinity') <= now() - $4::bigint * interval '1 millisecond'
	  AND coalesce(s.started_at, '-infinity') <= now() - $5::bigint * interval '1 millisecond'
RETURNING true`

// ClaimSweep implements bot.SweepLease.
func (s *Store) ClaimSweep(ctx context.Context, name, holder string, hold, every, retry time.Duration) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, claimSweepSQL, name, holder, hold.Milliseconds(), every.Milliseconds(), retry.Milliseconds()).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim sweep %s: %w", name, err)
	}
	return ok, nil
}

// RenewSweep implements bot.SweepLease.
func (s *Store) RenewSweep(ctx context.Context, name, holder string, hold time.Duration) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE bot_sweeps SET held_until = now() + $3::bigint * interval '1 millisecond'
		WHERE name = $1 AND holder = $2`, name, holder, hold.Milliseconds())
	if err != nil {
		return false, fmt.Errorf("renew sweep %s: %w", name, err)
	}
	return tag.RowsAffected() == 1, nil
}

// FinishSweep implements bot.SweepLease.
func (s *Store) FinishSweep(ctx context.Context, name, holder string, complete bool) error {
	_, err := s.pool.Exec(ctx, `UPDATE bot_sweeps SET holder = '', held_until = '-infinity',
		completed_at = CASE WHEN $3 THEN now() ELSE completed_at END
		WHERE name = $1 AND holder = $2`, name, holder, complete)
	if err != nil {
		return fmt.Errorf("finish sweep %s: %w", name, err)
	}
	return nil
}

// SweepLag returns how long ago sweep name last completed, by the database's clock, and false
// when it never completed. It returns an error when the database cannot be read.
func (s *Store) SweepLag(ctx context.Context, name string) (time.Duration, bool, error) {
	var ms *float64
	err := s.pool.QueryRow(ctx, `SELECT (extract(epoch FROM now() - completed_at) * 1000)::float8 FROM bot_sweeps WHERE name = $1`, name).Scan(&ms)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && ms == nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read sweep %s: %w", name, err)
	}
	return time.Duration(*ms * float64(time.Millisecond)), true, nil
}

// AnsweredChannels implements bot.Audiences, from the index of shown answers.
func (s *Store) AnsweredChannels(ctx context.Context, platform string) ([]bot.ConversationKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT workspace, channel FROM bot_answers
		WHERE platform = $1 AND NOT ephemeral AND redacted_at IS NULL
		ORDER BY workspace, channel`, platform)
	if err != nil {
		return nil, fmt.Errorf("list %s channels with answers: %w", platform, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.ConversationKey, error) {
		k := bot.ConversationKey{Platform: platform}
		return k, r.Scan(&k.Workspace, &k.Channel)
	})
	if err != nil {
		return nil, fmt.Errorf("list %s channels with answers: %w", platform, err)
	}
	return out, nil
}
