package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/syncbuf"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// groupDoc is a document readable by one group, carrying that group's canary phrase.
type groupDoc struct {
	group, path, title, canary, text string
}

// groupDocs: one document per group, each with a unique canary. Whoever may not read a group
// must never see its canary, title or path.
var groupDocs = []groupDoc{
	{"everyone", "handbook/holidays.md", "Public holidays 2025", "CANARY-ALL-P4R",
		"The office closes on 24 and 31 December. Holiday calendar reference CANARY-ALL-P4R."},
	{"eng", "engineering/deploys.md", "Deploy freeze policy", "CANARY-ENG-Z19",
		"Production deploys freeze from 20 December to 2 January. Change ticket prefix CANARY-ENG-Z19."},
	{"hr", "people/salary-bands.md", "Salary bands", "CANARY-HR-M3X",
		"Band 4 tops out at 61,000 euros. Compensation file CANARY-HR-M3X."},
	{"finance", "finance/cash-forecast.md", "Cash forecast", "CANARY-FIN-Q7D",
		"Cash at year end is forecast at 12.4 million euros. Treasury memo CANARY-FIN-Q7D."},
}

// Callers of the tests and the groups the access map gives them.
const (
	erik  = "erik@norvik.example"  // everyone, staff, eng
	hanna = "hanna@norvik.example" // everyone, staff, hr
	felix = "felix@norvik.example" // everyone, staff, finance
	guest = "guest@elsewhere.example"
)

// bundle is a running MCP server over a real index with one document per group.
type bundle struct {
	url    string
	tokens *pgtokens.Store
	store  *pgstore.Store
	docIDs map[string]int64 // by group
	audit  *syncbuf.Buffer
	now    time.Time
}

type setupOptions struct {
	defaultGroups []string
	oidc          *mcpserver.OIDCVerifier
	askLimit      mcpserver.AskLimit
	queue         mcpserver.Queue
}

func setup(t *testing.T, so setupOptions) *bundle {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	emb := hashembed.New(0)
	store := pgstoretest.New(t, emb.Info())
	b := &bundle{tokens: pgtokens.New(store.Pool()), store: store, docIDs: map[string]int64{}, audit: &syncbuf.Buffer{}, now: time.Now()}
	for i, d := range groupDocs {
		b.docIDs[d.group] = pgstoretest.Put(t, store, emb, rag.Document{Source: "kb", ExternalID: d.path, Title: d.title, Lang: "en",
			Owner: "Ops", UpdatedAt: time.Date(2025, 2, 1+i, 0, 0, 0, 0, time.UTC), Groups: []string{d.group}}, d.text)
	}
	hybrid := rag.NewHybrid(store, emb, rag.DefaultHybridOptions())
	defaults := so.defaultGroups
	if defaults == nil {
		defaults = []string{"everyone"}
	}
	access := bot.NewAccessMap(nil, nil,
		map[string][]string{erik: {"eng"}, hanna: {"hr"}, felix: {"finance"}},
		map[string][]string{"norvik.example": {"staff"}}, defaults)
	srv := mcpserver.New(mcpserver.Options{
		Searcher: hybrid, Documents: store, Tokens: b.tokens, Access: access, OIDC: so.oidc,
		Answerer: rag.NewPipeline(hybrid, rag.Extractive{}, nil, rag.PipelineOptions{MinEvidence: 0.01, Logger: quiet}),
		Logger:   slog.New(slog.NewJSONHandler(b.audit, nil)),
		AskLimit: so.askLimit, Queue: so.queue,
		Now: func() time.Time { return b.now },
	})
	mux := http.NewServeMux()
	mux.Handle(mcpserver.Path, srv.Handler())
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	b.url = hs.URL + mcpserver.Path
	return b
}

// token creates a personal token for email (groups narrow it; expires zero means never).
func (b *bundle) token(t *testing.T, email string, groups []string, expires time.Time) string {
	t.Helper()
	tok, _, err := b.tokens.Create(context.Background(), email, groups, "test", expires)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// connect opens an MCP session with the Go SDK's client over loopback, authenticated by token.
func connect(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	return mcpserver.Dial(ctx, url, token)
}

func mustConnect(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := connect(context.Background(), url, token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool and returns its result with the whole of what the client received (text and
// structured content) as one string, for leak checks.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var all strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			all.WriteString(tc.Text)
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	all.Write(raw)
	return res, all.String()
}

// decode turns a result's structured content into out.
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

func docText(group string) string {
	for _, d := range groupDocs {
		if d.group == group {
			return d.text
		}
	}
	panic(fmt.Sprintf("no document for %s", group))
}
