package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/bench"
)

const mcpBenchUsage = `Usage: cita bench --mcp [--chunks 10000] [--queries 300] [--json]

Measures the MCP server's search tool as an assistant sees it: a synthetic corpus of --chunks
chunks (ten access groups) is indexed in an isolated namespace (dropped afterwards), the MCP
server runs on a loopback listener with a personal token per group, and the Go SDK's client
calls search --queries times, each under the scope of the group that may read the chunk the
query came from. It prints p50/p95/p99 of the tool call (HTTP, token check, search, audit line,
JSON) beside the same searches called directly, and counts passages returned outside the
caller's group (must be 0). Target: p95 under 100 ms at 10k chunks.

Flags:
`

// mcpBenchRequested reports whether args ask for the MCP benchmark.
func mcpBenchRequested(args []string) bool {
	return slices.Contains(args, "--mcp") || slices.Contains(args, "-mcp")
}

// mcpBenchResult is what `cita bench --mcp --json` prints.
type mcpBenchResult struct {
	Chunks       int     `json:"chunks"`
	Calls        int     `json:"calls"`
	MCPP50       float64 `json:"mcp_search_p50_ms"`
	MCPP95       float64 `json:"mcp_search_p95_ms"`
	MCPP99       float64 `json:"mcp_search_p99_ms"`
	DirectP50    float64 `json:"direct_search_p50_ms"`
	DirectP95    float64 `json:"direct_search_p95_ms"`
	Passages     int     `json:"passages"`
	OutsideScope int     `json:"passages_outside_scope"`
}

func runMCPBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags("bench", e, mcpBenchUsage)
	fs.Bool("mcp", true, "run this benchmark")
	chunks := fs.Int("chunks", 10000, "corpus size in chunks")
	queries := fs.Int("queries", 300, "search calls")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *chunks < 100 || *queries < 1 {
		return errors.New("--chunks must be at least 100 and --queries at least 1")
	}
	a, closeApp, err := openScratchApp(ctx, e, "cita_bench_mcp")
	if err != nil {
		return err
	}
	defer closeApp()
	progress := func(msg string) {
		if !*asJSON {
			fmt.Fprintf(e.stderr, "  %s %s\n", time.Now().Format("15:04:05"), msg)
		}
	}
	qs, err := bench.Load(ctx, bench.Config{Chunks: *chunks, Queries: *queries, Store: a.store, Embedder: a.embedder, Progress: progress})
	if err != nil {
		return err
	}
	// One token per group; the access map gives each bench identity exactly its group.
	tokens := pgtokens.New(a.pool)
	emails := map[string][]string{}
	byGroup := map[string]string{}
	for _, g := range bench.Groups() {
		email := "bench-" + g + "@bench.invalid"
		emails[email] = []string{g}
		tok, _, err := tokens.Create(ctx, email, nil, "cita bench --mcp", time.Now().Add(time.Hour))
		if err != nil {
			return err
		}
		byGroup[g] = tok
	}
	srv := mcpserver.New(mcpserver.Options{
		Searcher: a.search, Documents: a.store, Tokens: tokens,
		Answerer: rag.NewPipeline(a.search, rag.Extractive{}, nil, rag.PipelineOptions{Logger: e.logger}),
		Access:   bot.NewAccessMap(nil, nil, emails, nil, []string{}),
		Logger:   slog.New(slog.NewJSONHandler(io.Discard, nil)), // the audit line's cost, without the output
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on loopback: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(mcpserver.Path, srv.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	url := "http://" + ln.Addr().String() + mcpserver.Path

	sessions := map[string]*mcp.ClientSession{}
	for g, tok := range byGroup {
		cs, err := mcpserver.Dial(ctx, url, tok)
		if err != nil {
			return err
		}
		defer cs.Close()
		sessions[g] = cs
	}
	progress(fmt.Sprintf("calling search %d times through the MCP client", len(qs)))
	res := mcpBenchResult{Chunks: *chunks}
	var viaMCP, direct []time.Duration
	for i, q := range qs {
		args := map[string]any{"query": q.Text, "k": 8}
		if i == 0 { // warm both paths once
			if _, err := sessions[q.Group].CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args}); err != nil {
				return err
			}
		}
		t0 := time.Now()
		out, err := sessions[q.Group].CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args})
		if err != nil {
			return fmt.Errorf("search call: %w", err)
		}
		viaMCP = append(viaMCP, time.Since(t0))
		if out.IsError {
			return fmt.Errorf("search call failed: %v", out.Content)
		}
		var got mcpserver.SearchOutput
		raw, _ := json.Marshal(out.StructuredContent)
		if err := json.Unmarshal(raw, &got); err != nil {
			return fmt.Errorf("decode search result: %w", err)
		}
		for _, p := range got.Passages {
			res.Passages++
			if benchGroupOf(p.Path) != q.Group {
				res.OutsideScope++
			}
		}
		t0 = time.Now()
		if _, err := a.search.Search(ctx, rag.SearchRequest{Query: q.Text, Scope: rag.MustScope(q.Group), Limit: 8}); err != nil {
			return err
		}
		direct = append(direct, time.Since(t0))
	}
	res.Calls = len(viaMCP)
	res.MCPP50, res.MCPP95, res.MCPP99 = percentileMS(viaMCP, 0.5), percentileMS(viaMCP, 0.95), percentileMS(viaMCP, 0.99)
	res.DirectP50, res.DirectP95 = percentileMS(direct, 0.5), percentileMS(direct, 0.95)
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(res)
	}
	fmt.Fprintf(e.stdout, "%d chunks: MCP search over loopback (Go SDK client, %d calls) p50 %.2f ms p95 %.2f ms p99 %.2f ms | "+
		"same searches called directly p50 %.2f ms p95 %.2f ms | %d passages, %d outside the caller's scope\n",
		res.Chunks, res.Calls, res.MCPP50, res.MCPP95, res.MCPP99, res.DirectP50, res.DirectP95, res.Passages, res.OutsideScope)
	if res.OutsideScope > 0 {
		return fmt.Errorf("%d passages came back outside the caller's scope", res.OutsideScope)
	}
	return nil
}

// benchGroupOf is the group of a synthetic document "doc-<n>.md": group-<n mod 10>.
func benchGroupOf(path string) string {
	var n int
	if _, err := fmt.Sscanf(strings.TrimSuffix(path, ".md"), "doc-%d", &n); err != nil {
		return ""
	}
	return fmt.Sprintf("group-%d", n%len(bench.Groups()))
}

func percentileMS(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return float64(s[i].Microseconds()) / 1000
}
