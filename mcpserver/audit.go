package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolFunc is a tool's logic under an authenticated caller: its result, its structured output,
// how many results it returned (for the audit line) and an error.
type toolFunc[In, Out any] func(ctx context.Context, c *Caller, in In) (*mcp.CallToolResult, Out, int, error)

// audited wraps a tool: it refuses a call without an authenticated caller (never a default
// scope), runs the tool and writes one audit line per call with the tool, the caller, the token,
// the scope key, the result count, the outcome and the duration, never the query or any text. An
// error that is not a refusal is logged and reported to the client without detail.
func audited[In, Out any](s *Server, name string, f toolFunc[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		start := time.Now()
		var zero Out
		c := callerOf(req.Extra.TokenInfo)
		if c == nil || c.Scope.Empty() {
			s.logger.ErrorContext(ctx, "mcp call without a caller refused", slog.String("tool", name))
			return nil, zero, errors.New("not authenticated")
		}
		res, out, n, err := f(ctx, c, in)
		outcome := "ok"
		attrs := []slog.Attr{slog.String("tool", name), slog.String("auth", c.Auth), slog.String("email", c.Email),
			slog.Int64("token_id", c.TokenID), slog.String("scope_key", c.Scope.Key()), slog.Int("results", n)}
		var te *toolError
		switch {
		case errors.As(err, &te):
			outcome = "refused"
			attrs = append(attrs, slog.String("reason", te.msg))
		case err != nil:
			outcome = "error"
			attrs = append(attrs, slog.String("error", err.Error()))
			err = errors.New(name + " failed: try again shortly")
		}
		attrs = append(attrs, slog.String("outcome", outcome), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
		s.logger.LogAttrs(ctx, slog.LevelInfo, "mcp call", attrs...)
		return res, out, err
	}
}
