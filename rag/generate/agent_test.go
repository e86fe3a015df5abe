package generate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
)

// action is one step of a scripted model's plan: a search, or reading the document of the first
// passage the previous tool result showed ("get_document" with an empty query), or of a fixed id.
type action struct {
	tool  string
	query string
	docID int64
}

// passageRe finds the passages of a tool result: number, header and document id.
var passageRe = regexp.MustCompile(`\[(\d+)\] ([^\n]*), document id (\d+)\n<source id="(\d+)">`)

// firstRe finds the number of a tool result's first passage, shown in full or "(shown above)".
var firstRe = regexp.MustCompile(`(?m)^\[(\d+)\] `)

// scriptedModel plays a model with tool calling: for a question it follows its plan, one tool
// call per turn, then answers citing the first passage of every tool result, as a model that
// found what it looked for would. It reads the question and the tool results from the wire.
func scriptedModel(plans map[string][]action) fakeopenai.ReplyFunc {
	return func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
		question := between(req.Messages[1].Content, "<question>\n", "\n</question>")
		plan := plans[question]
		var results []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if len(req.Tools) == 0 && len(results) == 0 {
			// The single-shot composer: cite the first source.
			return fakeopenai.Reply{Content: "From the sources [1]."}, nil
		}
		if len(req.Tools) > 0 && len(results) < len(plan) {
			a := plan[len(results)]
			args := map[string]any{"query": a.query}
			if a.tool == "get_document" {
				id := a.docID
				if id == 0 && len(results) > 0 {
					docOf := map[string]int64{} // passage number -> document id, over every result
					for _, r := range results {
						for _, m := range passageRe.FindAllStringSubmatch(r, -1) {
							var d int64
							fmt.Sscan(m[3], &d)
							docOf[m[1]] = d
						}
					}
					if m := firstRe.FindStringSubmatch(results[len(results)-1]); m != nil {
						id = docOf[m[1]]
					}
				}
				args = map[string]any{"document_id": id}
			}
			b, _ := json.Marshal(args)
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{Function: fakeopenai.FunctionCall{Name: a.tool, Arguments: string(b)}}}}, nil
		}
		var parts []string
		for i, r := range results {
			if m := firstRe.FindStringSubmatch(r); m != nil {
				parts = append(parts, fmt.Sprintf("Finding %d [%s].", i+1, m[1]))
			}
		}
		if len(parts) == 0 {
			return fakeopenai.Reply{Content: rag.NotFoundText("en", "")}, nil
		}
		return fakeopenai.Reply{Content: strings.Join(parts, " ")}, nil
	}
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

func agentChat(t *testing.T, srv *fakeopenai.Server) *openai.Chat {
	t.Helper()
	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, ChatModel: "qwen2.5:7b", MaxRetries: -1,
		Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return chat
}

// agentPipeline is what cmd/cita wires with chat.agent: true.
func agentPipeline(t *testing.T, c *corpus, srv *fakeopenai.Server, maxSteps int) *rag.Pipeline {
	chat := agentChat(t, srv)
	agent := generate.NewAgent(chat, c.search, c.store, generate.AgentOptions{MaxSteps: maxSteps, Logger: slog.New(slog.DiscardHandler)})
	return rag.NewPipeline(c.search, generate.NewLLMComposer(chat), nil, rag.PipelineOptions{Agent: agent, Logger: slog.New(slog.DiscardHandler)})
}

func citedPaths(ans *rag.Answer) []string {
	var out []string
	for _, s := range ans.Sources {
		if !slices.Contains(out, s.Path) {
			out = append(out, s.Path)
		}
	}
	slices.Sort(out)
	return out
}

// TestAgentCitesBothDocuments runs the multi-document test set: each question needs a policy and
// the record it applies to, and the agent's answer must cite both.
func TestAgentCitesBothDocuments(t *testing.T) {
	t.Parallel()
	c := indexAgentCorpus(t)
	cases := []struct {
		question string
		scope    rag.Scope
		plan     []action
		want     []string
	}{
		{
			question: "Which of my Lisbon trip expenses need a receipt under the new travel policy?",
			scope:    rag.MustScope("everyone"),
			plan:     []action{{tool: "search", query: "receipt rules for expenses"}, {tool: "search", query: "Lisbon customer visit expense items"}},
			want:     []string{"expenses/2025-03-lisbon-customer-visit.md", "policies/travel-expenses-2025.md"},
		},
		{
			question: "Who approves the on-call compensation for the payments team?",
			scope:    rag.MustScope("everyone", "eng"),
			plan:     []action{{tool: "search", query: "on-call compensation approved"}, {tool: "search", query: "payments team director"}},
			want:     []string{"engineering/oncall-handbook.md", "engineering/org-chart.md"},
		},
		{
			question: "How long do I have to wait for approval of my Lisbon expense report?",
			scope:    rag.MustScope("everyone"),
			plan: []action{{tool: "search", query: "Lisbon customer visit trip"}, {tool: "search", query: "expense reports approved line manager"},
				{tool: "get_document"}},
			want: []string{"expenses/2025-03-lisbon-customer-visit.md", "policies/travel-expenses-2025.md"},
		},
	}
	plans := map[string][]action{}
	for _, tc := range cases {
		plans[tc.question] = tc.plan
	}
	srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(scriptedModel(plans)))
	p := agentPipeline(t, c, srv, 4)
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			var streamed string
			ans, err := p.Answer(context.Background(), rag.Question{Text: tc.question, Scope: tc.scope}, func(d string) { streamed += d })
			if err != nil {
				t.Fatal(err)
			}
			if ans.Abstained || ans.AgentFallback != "" {
				t.Fatalf("abstained=%v (%s), fallback %q: %s", ans.Abstained, ans.AbstainReason, ans.AgentFallback, ans.Text)
			}
			if got := citedPaths(ans); !slices.Equal(got, tc.want) {
				t.Fatalf("cited %v, want %v; answer %q", got, tc.want, ans.Text)
			}
			if len(ans.Steps) != len(tc.plan) {
				t.Fatalf("steps = %+v, want %d", ans.Steps, len(tc.plan))
			}
			for i, st := range ans.Steps {
				if st.N != i+1 || st.Tool != tc.plan[i].tool || st.Results == 0 || st.Error != "" {
					t.Errorf("step %d = %+v", i+1, st)
				}
				if st.Tool == "search" && st.Query != tc.plan[i].query {
					t.Errorf("step %d query %q, want %q", i+1, st.Query, tc.plan[i].query)
				}
			}
			// Citations are renumbered 1..k over the cited sources, as single-shot answers are.
			for i, s := range ans.Sources {
				if s.N != i+1 || !strings.Contains(ans.Text, fmt.Sprintf("[%d]", s.N)) {
					t.Errorf("source %d numbered %d, text %q", i+1, s.N, ans.Text)
				}
			}
			if streamed == "" || ans.Usage.PromptTokens == 0 {
				t.Errorf("streamed %q, usage %+v", streamed, ans.Usage)
			}
		})
	}
}

// TestAgentStaysInScope lets the model look for another group's canaries by search and ask for
// their documents by id: no tool result sent to the model, and no source of the answer, may hold
// them.
func TestAgentStaysInScope(t *testing.T) {
	t.Parallel()
	c := indexAgentCorpus(t)
	hrDoc, finDoc := c.ids["hr/salary-review-2025.md"], c.ids["finance/board-forecast.md"]
	const question = "What is the salary review budget and the Q3 forecast?"
	plan := []action{{tool: "search", query: "CANARY-HR-7Q2 salary review budget"}, {tool: "get_document", docID: hrDoc},
		{tool: "search", query: "CANARY-FIN-K81 board forecast revenue"}, {tool: "get_document", docID: finDoc}}
	srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(scriptedModel(map[string][]action{question: plan})))
	p := agentPipeline(t, c, srv, 4)
	for _, scope := range []rag.Scope{rag.MustScope("everyone"), rag.MustScope("everyone", "eng")} {
		ans, err := p.Answer(context.Background(), rag.Question{Text: question, Scope: scope}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ans.Sources {
			if s.DocumentID == hrDoc || s.DocumentID == finDoc {
				t.Fatalf("scope %s cited %s", scope, s.Path)
			}
		}
		if len(ans.Steps) != 4 || ans.Steps[1].Error != "not found" || ans.Steps[3].Error != "not found" {
			t.Fatalf("steps = %+v, want the two reads refused as not found", ans.Steps)
		}
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role != "tool" {
				continue
			}
			for _, canary := range []string{"CANARY-HR-7Q2", "CANARY-FIN-K81", "Salary review 2025", "Board forecast", "salary-review", "board-forecast"} {
				if strings.Contains(m.Content, canary) {
					t.Fatalf("a tool result outside the scope reached the model: %q in %q", canary, m.Content)
				}
			}
		}
	}
	// The same plan under the hr scope does reach the hr canary: the check above can fail.
	ans, err := p.Answer(context.Background(), rag.Question{Text: question, Scope: rag.MustScope("hr")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := citedPaths(ans); !slices.Contains(got, "hr/salary-review-2025.md") || slices.Contains(got, "finance/board-forecast.md") {
		t.Fatalf("hr scope cited %v", got)
	}
}

func TestAgentFallsBackToOneSearch(t *testing.T) {
	t.Parallel()
	c := indexAgentCorpus(t)
	const question = "Which expenses need a receipt under the travel policy?"
	cases := []struct {
		name   string
		reply  fakeopenai.ReplyFunc
		reason string
	}{
		{"endpoint rejects tools", func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
			if len(req.Tools) > 0 {
				return fakeopenai.Reply{}, &fakeopenai.HTTPError{Status: http.StatusBadRequest, Message: "model does not support tools"}
			}
			return fakeopenai.Reply{Content: "Expenses of 25 euros or more need a receipt [1]."}, nil
		}, "tools_unsupported"},
		{"model calls no tool", func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
			if len(req.Tools) > 0 {
				return fakeopenai.Reply{Content: "I think receipts are always needed."}, nil
			}
			return fakeopenai.Reply{Content: "Expenses of 25 euros or more need a receipt [1]."}, nil
		}, "no_tool_calls"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(tc.reply))
			p := agentPipeline(t, c, srv, 4)
			ans, err := p.Answer(context.Background(), rag.Question{Text: question, Scope: rag.MustScope("everyone")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ans.AgentFallback != tc.reason || ans.Steps != nil || ans.Abstained {
				t.Fatalf("fallback %q steps %v abstained %v (%s), want the single-shot answer after %q", ans.AgentFallback, ans.Steps,
					ans.Abstained, ans.AbstainReason, tc.reason)
			}
			if len(ans.Sources) != 1 || ans.Sources[0].Path != "policies/travel-expenses-2025.md" || ans.Search == nil || len(ans.Search.Trace.Arms) == 0 {
				t.Fatalf("single-shot answer expected, got sources %+v", ans.Sources)
			}
			reqs := srv.Requests()
			if last := reqs[len(reqs)-1]; len(last.Tools) != 0 || !strings.Contains(last.Messages[1].Content, "Sources, strongest first") {
				t.Fatalf("the last request is not the composer's: %+v", last.Messages)
			}
		})
	}
}

func TestAgentStopsAtMaxSteps(t *testing.T) {
	t.Parallel()
	c := indexAgentCorpus(t)
	srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
		if len(req.Tools) == 0 {
			return fakeopenai.Reply{Content: "Receipts are needed from 25 euros [1]."}, nil
		}
		// Always two searches at once: the budget runs out in the middle of a turn.
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
			{Function: fakeopenai.FunctionCall{Name: "search", Arguments: `{"query":"receipt"}`}},
			{Function: fakeopenai.FunctionCall{Name: "search", Arguments: `{"query":"per diem"}`}},
		}}, nil
	}))
	p := agentPipeline(t, c, srv, 3)
	ans, err := p.Answer(context.Background(), rag.Question{Text: "Do taxis need receipts?", Scope: rag.MustScope("everyone")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Steps) != 3 || ans.Abstained {
		t.Fatalf("steps %d (want 3), abstained %v: %s", len(ans.Steps), ans.Abstained, ans.AbstainReason)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(reqs[2].Tools) != 0 {
		t.Fatalf("%d model calls, the last with %d tools; want 3 calls, the last without tools", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "Step limit reached") {
		t.Fatalf("the fourth call was not refused: %+v", last)
	}
}
