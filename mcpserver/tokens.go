package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// TokenPrefix starts every personal token, so a token pasted in the wrong place is recognisable
// and secret scanners can find it.
const TokenPrefix = "cita_"

// ErrTokenUnknown is returned by a TokenStore for a token it never issued.
var ErrTokenUnknown = errors.New("unknown token")

// Token is a personal access token's record (never the token itself).
type Token struct {
	ID    int64
	Email string
	// Groups, when not empty, narrow the e-mail's access groups to those also listed here.
	Groups     []string
	Note       string
	CreatedAt  time.Time
	ExpiresAt  time.Time // zero: never
	RevokedAt  time.Time // zero: not revoked
	LastUsedAt time.Time // zero: never used
}

// Usable returns nil when the token may be used at now, or an error that says why not and what
// to do, naming the token by id.
func (t Token) Usable(now time.Time) error {
	if !t.RevokedAt.IsZero() {
		return fmt.Errorf("token %d was revoked on %s: ask an admin for a new one (cita tokens create)", t.ID, t.RevokedAt.UTC().Format(time.DateOnly))
	}
	if !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) {
		return fmt.Errorf("token %d expired on %s: ask an admin for a new one (cita tokens create)", t.ID, t.ExpiresAt.UTC().Format(time.DateOnly))
	}
	return nil
}

// TokenStore finds personal tokens by hash. pgtokens implements it.
type TokenStore interface {
	// LookupToken returns the token whose SHA-256 is hash, whether usable or not, and records
	// its use when it is usable. It returns ErrTokenUnknown when no token has that hash.
	LookupToken(ctx context.Context, hash []byte) (*Token, error)
}

// NewToken returns a fresh personal token (TokenPrefix and 32 random bytes, base64url) and the
// hash to store. It returns an error only when the system's random source fails.
func NewToken() (token string, hash []byte, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("generate token: %w", err)
	}
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken is the stored form of a token: SHA-256 of its text. A plain hash is enough because
// tokens carry 256 random bits; nothing is there to brute-force.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// isPersonalToken reports whether a bearer token has the shape of a personal token.
func isPersonalToken(s string) bool {
	return strings.HasPrefix(s, TokenPrefix) && len(s) == len(TokenPrefix)+43
}
