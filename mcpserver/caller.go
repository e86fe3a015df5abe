package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Caller is who makes an MCP request, resolved from its bearer token, with the access scope every
// tool runs under.
type Caller struct {
	Auth    string // "token" (a personal token) or "oidc"
	TokenID int64  // the personal token's id; 0 for OIDC
	Email   string
	Scope   rag.Scope
	// Expires is when the credential stops working; zero for a token without expiry.
	Expires time.Time
}

// userID is the identity the SDK binds a session to.
func (c *Caller) userID() string {
	if c.Auth == "token" {
		return fmt.Sprintf("token:%d", c.TokenID)
	}
	return "oidc:" + c.Email
}

// ScopeFor resolves an e-mail's scope like a chat identity's (the access map's e-mail, domain and
// default groups, and its identity groups: the address is verified, by the admin who issued the
// token or by the OIDC issuer), narrowed to tokenGroups when the token lists any. It returns
// rag.ErrNoScope when nothing is left (an empty scope is refused, never "no filter"), or an
// error when the directory cannot be read.
func ScopeFor(ctx context.Context, access *bot.AccessMap, email string, tokenGroups []string) (rag.Scope, error) {
	id, err := access.Resolve(ctx, bot.Identity{Email: email, EmailVerified: true})
	if err != nil {
		return rag.Scope{}, err
	}
	groups := access.Groups(id)
	if narrow := rag.NormalizeGroups(tokenGroups); len(narrow) > 0 {
		groups = slices.DeleteFunc(groups, func(g string) bool { return !slices.Contains(narrow, g) })
	}
	return rag.NewScope(groups...)
}

type callerKey struct{}

// withCaller stores the authenticated caller for the SDK's token middleware to pick up.
func withCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// tokenInfoExtraKey names the caller in auth.TokenInfo.Extra, which the SDK hands to every tool
// call of the request (req.Extra.TokenInfo).
const tokenInfoExtraKey = "cita_caller"

// callerOf returns the caller of a tool call, or nil when the request was not authenticated by
// this package (which the handler then refuses).
func callerOf(ti *auth.TokenInfo) *Caller {
	if ti == nil {
		return nil
	}
	c, _ := ti.Extra[tokenInfoExtraKey].(*Caller)
	return c
}

// domainOf returns the lower-cased domain of an e-mail address, or "".
func domainOf(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(email[at+1:])
}
