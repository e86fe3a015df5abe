package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dial opens an MCP session to the server at url (ending in Path) with the Go SDK's streamable
// HTTP client, sending token as a bearer token on every request. It is how the benchmark, the
// tests and the leak harness drive the tools as an assistant would. It returns the server's
// refusal (an expired or revoked token, no access group) as an error in the server's words.
func Dial(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "cita-client", Version: "v1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearerTransport{token: token, base: http.DefaultTransport}, Timeout: 2 * time.Minute}}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	return cs, nil
}

// bearerTransport adds "Authorization: Bearer <token>" to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
