package pgtokens_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
	"github.com/citahq/cita/rag/pgstore"
)

func setup(t *testing.T) *pgtokens.Store {
	t.Helper()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(context.Background(), cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pgtokens.New(pool)
}

func TestTokensLifecycle(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	exp := time.Now().Add(48 * time.Hour).Truncate(time.Microsecond)
	tok, rec, err := s.Create(ctx, "ana@example.com", []string{" HR ", "hr", "Everyone"}, "laptop", exp)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != len(mcpserver.TokenPrefix)+43 || rec.Email != "ana@example.com" || !rec.ExpiresAt.Equal(exp) ||
		len(rec.Groups) != 2 || rec.Groups[0] != "everyone" || rec.Groups[1] != "hr" {
		t.Fatalf("created %q %+v", tok, rec)
	}
	got, err := s.LookupToken(ctx, mcpserver.HashToken(tok))
	if err != nil || got.ID != rec.ID || !got.LastUsedAt.IsZero() {
		// The lookup returns the row as it was before this use was recorded.
		t.Fatalf("first lookup %+v, %v", got, err)
	}
	got, err = s.LookupToken(ctx, mcpserver.HashToken(tok))
	if err != nil || got.LastUsedAt.IsZero() {
		t.Fatalf("second lookup does not show the first use: %+v, %v", got, err)
	}
	if _, err := s.LookupToken(ctx, mcpserver.HashToken(tok+"x")); !errors.Is(err, mcpserver.ErrTokenUnknown) {
		t.Fatalf("unknown token: %v", err)
	}
	// Stored hashed: the token text appears nowhere in the table.
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE position($1 in row(api_tokens.*)::text) > 0`, tok).Scan(&n); err != nil || n != 0 {
		t.Fatalf("token text stored (%d rows, %v)", n, err)
	}

	tok2, _, err := s.Create(ctx, "Ana@Example.com", nil, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := s.Create(ctx, "bo@example.com", nil, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.RevokeEmail(ctx, "ANA@example.com"); err != nil || n != 2 {
		t.Fatalf("revoked %d, %v; want both of ana's tokens", n, err)
	}
	for tk, revoked := range map[string]bool{tok: true, tok2: true, other: false} {
		got, err := s.LookupToken(ctx, mcpserver.HashToken(tk))
		if err != nil {
			t.Fatal(err)
		}
		if (got.Usable(time.Now()) != nil) != revoked {
			t.Fatalf("token of %s: usable error %v, want revoked=%v", got.Email, got.Usable(time.Now()), revoked)
		}
	}
	if _, err := s.Revoke(ctx, 999999); !errors.Is(err, mcpserver.ErrTokenUnknown) {
		t.Fatalf("revoke unknown id: %v", err)
	}
	if _, _, err := s.Create(ctx, "", nil, "", time.Time{}); err == nil {
		t.Fatal("a token without e-mail was created")
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 3 || list[0].Email != "bo@example.com" {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

func TestUsableSaysWhy(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		tok  mcpserver.Token
		want string
	}{
		{mcpserver.Token{ID: 3}, ""},
		{mcpserver.Token{ID: 3, ExpiresAt: now.Add(time.Second)}, ""},
		{mcpserver.Token{ID: 3, ExpiresAt: now}, "token 3 expired on 2025-06-01: ask an admin for a new one (cita tokens create)"},
		{mcpserver.Token{ID: 3, RevokedAt: now.AddDate(0, 0, -2), ExpiresAt: now.AddDate(0, 0, -1)}, "token 3 was revoked on 2025-05-30"},
	} {
		err := tc.tok.Usable(now)
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.tok, err, tc.want)
		}
	}
}
