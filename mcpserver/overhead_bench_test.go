package mcpserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/rag"
)

type memTokens map[string]*mcpserver.Token

func (m memTokens) LookupToken(_ context.Context, hash []byte) (*mcpserver.Token, error) {
	if t, ok := m[string(hash)]; ok {
		return t, nil
	}
	return nil, mcpserver.ErrTokenUnknown
}

type fixedSearcher []rag.Hit

func (f fixedSearcher) Search(context.Context, rag.SearchRequest) (*rag.SearchResult, error) {
	return &rag.SearchResult{Hits: f}, nil
}

// BenchmarkSearchCallOverhead measures what the MCP layer adds to a search: HTTP over loopback,
// the token check, the SDK's validation and JSON, the audit line. The searcher answers at once
// with eight 200-word passages and tokens are in memory.
func BenchmarkSearchCallOverhead(b *testing.B) {
	text := strings.Repeat("palabra ", 200)
	var hits []rag.Hit
	for i := range 8 {
		hits = append(hits, rag.Hit{ChunkID: int64(i + 1), DocumentID: 1, Title: "Doc", Section: "S", Content: text, Path: "doc.md", UpdatedAt: time.Now()})
	}
	tok, hash, _ := mcpserver.NewToken()
	srv := mcpserver.New(mcpserver.Options{Searcher: fixedSearcher(hits), Tokens: memTokens{string(hash): {ID: 1, Email: "a@b.example"}},
		Access: bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}), Logger: slog.New(slog.DiscardHandler)})
	mux := http.NewServeMux()
	mux.Handle(mcpserver.Path, srv.Handler())
	hs := httptest.NewServer(mux)
	defer hs.Close()
	cs, err := connect(context.Background(), hs.URL+mcpserver.Path, tok)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "palabra", "k": 8}}); err != nil {
			b.Fatal(err)
		}
	}
}
