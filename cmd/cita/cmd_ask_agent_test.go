package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/internal/syncbuf"
)

// TestAskExplainListsAgentSteps runs `cita ask --explain` with chat.agent on against the fake
// OpenAI-compatible server: the model searches twice, the answer cites both documents and the
// trace lists both steps.
func TestAskExplainListsAgentSteps(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs := indexedSchema(t,
		testDoc{"policies/travel.md", "Travel policy", "en", []string{"everyone"}, "Every expense of 25 euros or more needs an itemised receipt; taxi fares always do."},
		testDoc{"expenses/lisbon.md", "Lisbon trip expenses", "en", []string{"everyone"}, "Taxi from the airport: 18 euros. Hotel: 236 euros. Metro card: 6 euros."})

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
	var stdout, stderr syncbuf.Buffer
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
