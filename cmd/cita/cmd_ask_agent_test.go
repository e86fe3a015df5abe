package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// TestAskExplainListsAgentSteps runs `cita ask --explain` with chat.agent on against the fake
// OpenAI-compatible server: the model searches twice, the answer cites both documents and the
// trace lists both steps.
func TestAskExplainListsAgentSteps(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct{ path, title, text string }{
		{"policies/travel.md", "Travel policy", "Every expense of 25 euros or more needs an itemised receipt; taxi fares always do."},
		{"expenses/lisbon.md", "Lisbon trip expenses", "Taxi from the airport: 18 euros. Hotel: 236 euros. Metro card: 6 euros."},
	} {
		ch := rag.Chunk{Heading: d.title, Content: d.text}
		ch.Embedding = emb.Vector(ch.Text())
		if _, _, err := store.ReplaceDocument(ctx, rag.Document{Source: "kb", ExternalID: d.path, Title: d.title, Lang: "en",
			UpdatedAt: time.Now(), ContentHash: d.path, Groups: []string{"everyone"}}, []rag.Chunk{ch}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	pool.Close()

	first := regexp.MustCompile(`(?m)^\[(\d+)\] `)
	plan := []string{"itemised receipt policy", "Lisbon trip taxi hotel"}
	fake := fakeopenai.New(t, fakeopenai.WithReplyFunc(func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
		var results []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if len(req.Tools) > 0 && len(results) < len(plan) {
			args, _ := json.Marshal(map[string]string{"query": plan[len(results)]})
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: "search", Arguments: string(args)}}}}, nil
		}
		var parts []string
		for _, r := range results {
			if m := first.FindStringSubmatch(r); m != nil {
				parts = append(parts, "See ["+m[1]+"].")
			}
		}
		return fakeopenai.Reply{Content: strings.Join(parts, " ")}, nil
	}))
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
chat:
  base_url: %s
  model: qwen2.5:7b
  agent: true
  max_steps: 3
cache:
  enabled: false
`, cs, fake.URL))
	var stdout, stderr syncBuffer
	if code := run(ctx, []string{"--config", path, "ask", "--explain", "Which of my Lisbon expenses need a receipt?"}, &stdout, &stderr); code != 0 {
		t.Fatalf("ask exited %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"policies/travel.md", "expenses/lisbon.md",
		"agent steps (2):",
		`1. search "itemised receipt policy" -> `,
		`2. search "Lisbon trip taxi hotel" -> `,
		"passages the tools showed the model:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
