// Package mcpserver serves cita's knowledge base to AI assistants and IDEs over the Model
// Context Protocol (streamable HTTP, github.com/modelcontextprotocol/go-sdk): the tools search,
// get_document and ask. Every call runs under the caller's access scope, resolved from a
// personal token (TokenStore) or an OIDC ID token (OIDCVerifier) to an e-mail, and from the
// e-mail to groups like a chat identity (bot.AccessMap). Each call writes one audit line.
package mcpserver

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/keyrate"
	"github.com/citahq/cita/rag"
)

// Path is where `cita serve` mounts the MCP endpoint.
const Path = "/mcp"

// Answerer answers one question; *rag.Pipeline satisfies it.
type Answerer interface {
	Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)
}

// Options wires a Server. Searcher, Documents, Answerer, Tokens and Access are required.
type Options struct {
	Searcher  rag.Searcher
	Documents rag.DocumentReader
	Answerer  Answerer
	Tokens    TokenStore
	// Access maps a caller's e-mail to groups, as for chat users.
	Access *bot.AccessMap
	// OIDC, when set, also accepts that issuer's ID tokens.
	OIDC *OIDCVerifier
	// Queue, when set, is the answer queue ask waits in (shared with chat), so MCP cannot take
	// more workers than configured; a full queue gets a "busy" refusal.
	Queue Queue
	// AskLimit bounds each caller's ask calls (by e-mail); zero means no limit.
	AskLimit AskLimit
	// Version is reported to clients in the MCP handshake.
	Version string
	Logger  *slog.Logger
	// Now is the clock for token expiry; nil means time.Now.
	Now func() time.Time
}

// Server is the MCP endpoint. Construct it with New and mount Handler at Path.
type Server struct {
	opts    Options
	logger  *slog.Logger
	mcp     *mcp.Server
	askRate *keyrate.Limiter
}

// New returns a server with its tools registered.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, logger: opts.Logger, askRate: newCallerLimiter(opts.AskLimit)}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cita", Title: "cita knowledge base", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools()
	return s
}

const instructions = `cita searches the organisation's documents that you may read. Use search to find passages, ` +
	`get_document to read a document's sections by the document_id a passage shows, and ask for a short answer ` +
	`with numbered citations. Cite the passages' titles and paths or URLs when you use them.`

// Handler returns the HTTP handler for Path: bearer authentication, then the MCP streamable
// transport. It is stateless (no session kept between requests), so any replica can serve any
// request; the token is checked on every request, so a revocation takes effect at the next one.
func (s *Server) Handler() http.Handler {
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       s.logger,
		// Every request needs a bearer token, so a page that rebinds a name to a local address
		// gains nothing; and cita often runs behind a reverse proxy on the same host, whose Host
		// header is the public name.
		DisableLocalhostProtection: true,
	})
	// The SDK's middleware carries the caller to the tool handlers (req.Extra.TokenInfo); the
	// token was already checked by authenticate, whose answers say what is wrong.
	carry := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, _ := ctx.Value(callerKey{}).(*Caller)
		if c == nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: c.userID(), Expiration: c.Expires, Extra: map[string]any{tokenInfoExtraKey: c}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, aerr := s.authenticate(r.Context(), bearerToken(r))
		if aerr != nil {
			s.logger.WarnContext(r.Context(), "mcp request refused", slog.Int("status", aerr.status),
				slog.String("reason", aerr.msg), slog.String("remote_addr", r.RemoteAddr))
			writeAuthError(w, r, aerr)
			return
		}
		carry.ServeHTTP(w, r.WithContext(withCaller(r.Context(), c)))
	})
}
