// Package push keeps Google Drive push-notification channels (changes.watch) registered for
// the Drive sources that ask for them, renews each before it expires, and receives the
// notifications on `cita serve`'s POST /hooks/gdrive: a notification whose channel token
// verifies triggers an incremental pass of its source at once. The source's cron schedule stays
// the safety net for a lost notification or an expired channel.
package push

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Channels stores the channels (table drive_channels, migration 0015): every replica can verify
// a notification, whichever one registered the channel. Only a hash of each channel's token is
// stored.
type Channels struct {
	pool *pgxpool.Pool
}

// NewChannels returns the channel store in pool's database.
func NewChannels(pool *pgxpool.Pool) *Channels { return &Channels{pool: pool} }

// Channel is one registered channel.
type Channel struct {
	Source     string
	ID         string
	ResourceID string
	ExpiresAt  time.Time
}

// ErrUnknownChannel is returned by Verify for a channel id that is not registered, has expired,
// or whose token does not match.
var ErrUnknownChannel = errors.New("unknown or expired channel, or wrong token")

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// newSecret returns 32 random bytes in hex, for channel ids and tokens.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random channel secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Verify returns the source of the live channel id whose token is token, or ErrUnknownChannel.
// The token is compared in constant time against the stored hash.
func (c *Channels) Verify(ctx context.Context, id, token string) (string, error) {
	if id == "" || token == "" {
		return "", ErrUnknownChannel
	}
	var source string
	var hash []byte
	err := c.pool.QueryRow(ctx, `SELECT source, token_hash FROM drive_channels WHERE channel_id = $1 AND expires_at > now()`, id).
		Scan(&source, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrUnknownChannel
	}
	if err != nil {
		return "", fmt.Errorf("verify channel: %w", err)
	}
	if subtle.ConstantTimeCompare(hash, tokenHash(token)) != 1 {
		return "", ErrUnknownChannel
	}
	return source, nil
}

// Current returns the source's channel that expires last, ok false when it has none left alive.
func (c *Channels) Current(ctx context.Context, source string) (ch Channel, ok bool, err error) {
	err = c.pool.QueryRow(ctx, `SELECT source, channel_id, resource_id, expires_at FROM drive_channels
		WHERE source = $1 AND expires_at > now() ORDER BY expires_at DESC LIMIT 1`, source).
		Scan(&ch.Source, &ch.ID, &ch.ResourceID, &ch.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Channel{}, false, nil
	}
	if err != nil {
		return Channel{}, false, fmt.Errorf("read channel of %s: %w", source, err)
	}
	return ch, true, nil
}

// save records a channel and its token's hash.
func (c *Channels) save(ctx context.Context, ch Channel, token string) error {
	_, err := c.pool.Exec(ctx, `INSERT INTO drive_channels (source, channel_id, resource_id, token_hash, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, ch.Source, ch.ID, ch.ResourceID, tokenHash(token), ch.ExpiresAt)
	if err != nil {
		return fmt.Errorf("record channel of %s: %w", ch.Source, err)
	}
	return nil
}

// older returns the source's channels other than keep (expired ones included), to stop.
func (c *Channels) older(ctx context.Context, source, keep string) ([]Channel, error) {
	rows, err := c.pool.Query(ctx, `SELECT source, channel_id, resource_id, expires_at FROM drive_channels
		WHERE source = $1 AND channel_id <> $2`, source, keep)
	if err != nil {
		return nil, fmt.Errorf("read old channels of %s: %w", source, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Channel, error) {
		var ch Channel
		return ch, row.Scan(&ch.Source, &ch.ID, &ch.ResourceID, &ch.ExpiresAt)
	})
}

func (c *Channels) forget(ctx context.Context, id string) error {
	if _, err := c.pool.Exec(ctx, `DELETE FROM drive_channels WHERE channel_id = $1`, id); err != nil {
		return fmt.Errorf("forget channel %s: %w", id, err)
	}
	return nil
}

// claim takes a transaction-scoped advisory lock on the source's channel registration, so two
// replicas renewing at once register one channel; it returns false when another holds it.
func (c *Channels) claim(ctx context.Context, source string, fn func(ctx context.Context) error) (bool, error) {
	var ran bool
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var got bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.drive_channel.' || $1))`, source).Scan(&got); err != nil {
			return err
		}
		if !got {
			return nil
		}
		ran = true
		return fn(ctx)
	})
	if err != nil {
		return ran, fmt.Errorf("renew channel of %s: %w", source, err)
	}
	return ran, nil
}
