// Package pgtokens keeps the MCP server's personal access tokens in PostgreSQL (the api_tokens
// table of migration 0012): created and revoked by `cita tokens`, looked up by hash on every
// request, so a revocation reaches every replica at once.
package pgtokens

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/rag"
)

// Store implements mcpserver.TokenStore and the admin operations of `cita tokens`.
type Store struct {
	pool *pgxpool.Pool
}

var _ mcpserver.TokenStore = (*Store)(nil)

// New returns a store over pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// lastUseResolution is how stale last_used_at may get before a request writes it again: one
// write a minute per token, not one per call.
const lastUseResolution = "1 minute"

const tokenColumns = `id, email, groups, note, created_at, expires_at, revoked_at, last_used_at`

// Create stores a new token for email and returns the token (shown once) and its record. groups
// may be empty (the e-mail's own groups); expiresAt zero means no expiry. It returns an error for
// an empty e-mail or a database failure.
func (s *Store) Create(ctx context.Context, email string, groups []string, note string, expiresAt time.Time) (string, *mcpserver.Token, error) {
	if email == "" {
		return "", nil, errors.New("create token: an e-mail is required")
	}
	for _, g := range groups {
		if strings.TrimSpace(g) == "" {
			continue
		}
		if err := rag.ValidateGroup(g); err != nil {
			return "", nil, fmt.Errorf("create token: --groups: %w", err)
		}
	}
	token, hash, err := mcpserver.NewToken()
	if err != nil {
		return "", nil, err
	}
	var exp *time.Time
	if !expiresAt.IsZero() {
		exp = &expiresAt
	}
	row := s.pool.QueryRow(ctx, `INSERT INTO api_tokens (token_hash, email, groups, note, expires_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+tokenColumns, hash, email, nonNil(rag.NormalizeGroups(groups)), note, exp)
	t, err := scanToken(row)
	if err != nil {
		return "", nil, fmt.Errorf("create token: %w", err)
	}
	return token, t, nil
}

// LookupToken implements mcpserver.TokenStore in one statement: it reads the token and, when it
// is usable and its last use is older than a minute, records this use.
func (s *Store) LookupToken(ctx context.Context, hash []byte) (*mcpserver.Token, error) {
	row := s.pool.QueryRow(ctx, `
		WITH t AS (SELECT `+tokenColumns+` FROM api_tokens WHERE token_hash = $1),
		used AS (
			UPDATE api_tokens a SET last_used_at = now() FROM t
			WHERE a.id = t.id AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
				AND (t.last_used_at IS NULL OR t.last_used_at < now() - interval '`+lastUseResolution+`')
			RETURNING a.id
		)
		SELECT `+tokenColumns+` FROM t`, hash)
	t, err := scanToken(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, mcpserver.ErrTokenUnknown
	}
	if err != nil {
		return nil, fmt.Errorf("look up token: %w", err)
	}
	return t, nil
}

// Revoke revokes token id and returns its record. Revoking a revoked token keeps its first
// revocation time. It returns mcpserver.ErrTokenUnknown when no token has that id.
func (s *Store) Revoke(ctx context.Context, id int64) (*mcpserver.Token, error) {
	row := s.pool.QueryRow(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
		RETURNING `+tokenColumns, id)
	t, err := scanToken(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("revoke token %d: %w", id, mcpserver.ErrTokenUnknown)
	}
	if err != nil {
		return nil, fmt.Errorf("revoke token %d: %w", id, err)
	}
	return t, nil
}

// RevokeEmail revokes every unrevoked token of email (case-insensitive) and returns how many.
func (s *Store) RevokeEmail(ctx context.Context, email string) (int64, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE lower(email) = lower($1) AND revoked_at IS NULL`, email)
	if err != nil {
		return 0, fmt.Errorf("revoke tokens of %s: %w", email, err)
	}
	return tag.RowsAffected(), nil
}

// List returns every token, newest first.
func (s *Store) List(ctx context.Context) ([]mcpserver.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (mcpserver.Token, error) {
		t, err := scanToken(row)
		if err != nil {
			return mcpserver.Token{}, err
		}
		return *t, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

func scanToken(row pgx.Row) (*mcpserver.Token, error) {
	var t mcpserver.Token
	var exp, rev, used *time.Time
	if err := row.Scan(&t.ID, &t.Email, &t.Groups, &t.Note, &t.CreatedAt, &exp, &rev, &used); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		src *time.Time
		dst *time.Time
	}{{exp, &t.ExpiresAt}, {rev, &t.RevokedAt}, {used, &t.LastUsedAt}} {
		if p.src != nil {
			*p.dst = *p.src
		}
	}
	return &t, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
