package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/citahq/cita/rag"
)

// authError is a refused request: the HTTP status and a message that says what to do.
type authError struct {
	status int
	msg    string
}

func unauthorized(format string, args ...any) *authError {
	return &authError{status: http.StatusUnauthorized, msg: fmt.Sprintf(format, args...)}
}

// bearerToken returns the token of an "Authorization: Bearer" header, or "".
func bearerToken(r *http.Request) string {
	fields := strings.Fields(r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
		return ""
	}
	return fields[1]
}

// authenticate resolves a bearer token to a caller with a non-empty scope. A personal token is
// looked up by hash (unknown, revoked and expired tokens are refused with 401 and the reason);
// a JWT is verified against the OIDC issuer when one is configured. An identity left with no
// access group is refused with 403. Failing to check (database, issuer) is 503: never a pass.
func (s *Server) authenticate(ctx context.Context, raw string) (*Caller, *authError) {
	var c *Caller
	var groups []string
	switch {
	case raw == "":
		return nil, unauthorized("missing bearer token: send \"Authorization: Bearer <token>\" with a token from `cita tokens create`%s", s.oidcHint())
	case isPersonalToken(raw):
		t, err := s.opts.Tokens.LookupToken(ctx, HashToken(raw))
		if errors.Is(err, ErrTokenUnknown) {
			return nil, unauthorized("unknown token: check that it was copied whole, or ask an admin for one (cita tokens create)")
		}
		if err != nil {
			s.logger.ErrorContext(ctx, "mcp token lookup", "error", err)
			return nil, &authError{status: http.StatusServiceUnavailable, msg: "cannot check the token right now: try again shortly"}
		}
		if err := t.Usable(s.opts.Now()); err != nil {
			return nil, unauthorized("%s", err)
		}
		c = &Caller{Auth: "token", TokenID: t.ID, Email: t.Email, Expires: t.ExpiresAt}
		groups = t.Groups
	case s.opts.OIDC != nil && strings.Count(raw, ".") == 2:
		email, exp, err := s.opts.OIDC.Verify(ctx, raw)
		if errors.Is(err, errIssuerUnavailable) {
			s.logger.ErrorContext(ctx, "mcp oidc discovery", "error", err)
			return nil, &authError{status: http.StatusServiceUnavailable, msg: "cannot reach the identity provider to check the token: try again shortly"}
		}
		if err != nil {
			return nil, unauthorized("%s", err)
		}
		c = &Caller{Auth: "oidc", Email: email, Expires: exp}
	default:
		return nil, unauthorized("not a cita token: personal tokens start with %q%s", TokenPrefix, s.oidcHint())
	}
	scope, err := ScopeFor(ctx, s.opts.Access, c.Email, groups)
	if errors.Is(err, rag.ErrNoScope) {
		return nil, &authError{status: http.StatusForbidden, msg: fmt.Sprintf("%s has no access group: ask an admin to map the e-mail "+
			"or its domain (mcp.emails, mcp.domains) or to issue a token whose --groups the e-mail has", c.Email)}
	}
	if err != nil {
		// The groups cannot be known (the directory cannot be read): refused, never guessed.
		s.logger.ErrorContext(ctx, "mcp caller groups", "error", err)
		return nil, &authError{status: http.StatusServiceUnavailable, msg: "cannot resolve your access groups right now: try again shortly"}
	}
	c.Scope = scope
	return c, nil
}

func (s *Server) oidcHint() string {
	if s.opts.OIDC != nil {
		return ", or an ID token of the configured OIDC issuer"
	}
	return ""
}

// writeAuthError answers a refused request with the status, a WWW-Authenticate header (RFC 6750)
// and a JSON-RPC error whose message the MCP client shows, with the request's id when the body
// has one.
func writeAuthError(w http.ResponseWriter, r *http.Request, e *authError) {
	if e.status == http.StatusUnauthorized || e.status == http.StatusForbidden {
		code := "invalid_token"
		if e.status == http.StatusForbidden {
			code = "insufficient_scope"
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="cita", error=%q, error_description=%q`, code,
			strings.ReplaceAll(e.msg, `"`, "'")))
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if r.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		_ = json.NewDecoder(bytes.NewReader(body)).Decode(&req)
	}
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32001, "message": e.msg}})
}
