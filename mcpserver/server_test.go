package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/mcpserver"
)

func TestToolsListed(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	cs := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s lacks a schema or the read-only hint", tool.Name)
		}
	}
	if strings.Join(names, ",") != "ask,get_document,search" {
		t.Fatalf("tools = %v", names)
	}
}

func TestSearchReturnsPassagesWithTheirDocument(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	cs := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	res, all := call(t, cs, "search", map[string]any{"query": "production deploys freeze December", "k": 3})
	if res.IsError {
		t.Fatalf("search failed: %s", all)
	}
	var out mcpserver.SearchOutput
	decode(t, res, &out)
	if len(out.Passages) == 0 || len(out.Passages) > 3 {
		t.Fatalf("%d passages, want 1-3", len(out.Passages))
	}
	p := out.Passages[0]
	want := mcpserver.Passage{DocumentID: b.docIDs["eng"], Title: "Deploy freeze policy", Path: "engineering/deploys.md",
		Updated: "2025-02-02", Owner: "Ops", Text: docText("eng")}
	if p.DocumentID != want.DocumentID || p.Title != want.Title || p.Path != want.Path || p.Updated != want.Updated ||
		p.Owner != want.Owner || p.Text != want.Text || p.ChunkID == 0 {
		t.Fatalf("first passage = %+v, want %+v", p, want)
	}
	if !strings.Contains(all, "[1] Deploy freeze policy — engineering/deploys.md (updated 2025-02-02, document_id") {
		t.Fatalf("text content lacks the passage header: %s", all)
	}
	res, all = call(t, cs, "search", map[string]any{"query": "   "})
	if !res.IsError || !strings.Contains(all, "give a query") {
		t.Fatalf("empty query: %v %s", res.IsError, all)
	}
}

func TestGetDocumentReturnsOnlyReadableDocuments(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	hanna := mustConnect(t, b.url, b.token(t, hanna, nil, time.Time{}))
	res, all := call(t, hanna, "get_document", map[string]any{"document_id": b.docIDs["hr"]})
	if res.IsError {
		t.Fatalf("get_document failed: %s", all)
	}
	var doc mcpserver.DocumentOutput
	decode(t, res, &doc)
	if doc.Path != "people/salary-bands.md" || doc.Title != "Salary bands" || len(doc.Sections) != 1 || doc.Sections[0].Text != docText("hr") {
		t.Fatalf("document = %+v", doc)
	}
	erik := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	_, notReadable := call(t, erik, "get_document", map[string]any{"document_id": b.docIDs["hr"]})
	_, missing := call(t, erik, "get_document", map[string]any{"document_id": 987654})
	want := func(id int64) string { return fmt.Sprintf("document %d was not found", id) }
	if !strings.Contains(notReadable, want(b.docIDs["hr"])) || !strings.Contains(missing, want(987654)) {
		t.Fatalf("refusals differ from a missing document's: %q / %q", notReadable, missing)
	}
}

func TestAskAnswersWithCitations(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	cs := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	res, all := call(t, cs, "ask", map[string]any{"question": "When do production deploys freeze?"})
	if res.IsError {
		t.Fatalf("ask failed: %s", all)
	}
	var out mcpserver.AskOutput
	decode(t, res, &out)
	if out.Abstained || len(out.Sources) == 0 || out.Sources[0].Path != "engineering/deploys.md" || !strings.Contains(out.Answer, "[1]") {
		t.Fatalf("answer = %+v", out)
	}
}

// TestNoPassageOutsideTheCallersScope asks every tool, as every caller, for every group's canary
// and document: a canary, title or path of a group the caller may not read must never come back.
func TestNoPassageOutsideTheCallersScope(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	callers := []struct {
		name     string
		token    string
		readable []string
	}{
		{"erik (eng)", b.token(t, erik, nil, time.Time{}), []string{"everyone", "eng"}},
		{"hanna (hr)", b.token(t, hanna, nil, time.Time{}), []string{"everyone", "hr"}},
		{"felix (finance)", b.token(t, felix, nil, time.Time{}), []string{"everyone", "finance"}},
		{"a guest (default groups only)", b.token(t, guest, nil, time.Time{}), []string{"everyone"}},
		{"hanna with a token narrowed to everyone", b.token(t, hanna, []string{"everyone"}, time.Time{}), []string{"everyone"}},
		// A token cannot widen: finance is not hanna's, so only hr remains.
		{"hanna with a token listing hr and finance", b.token(t, hanna, []string{"hr", "finance"}, time.Time{}), []string{"hr"}},
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			cs := mustConnect(t, b.url, c.token)
			readable := map[string]bool{}
			for _, g := range c.readable {
				readable[g] = true
			}
			var seen strings.Builder
			for _, d := range groupDocs {
				_, out := call(t, cs, "search", map[string]any{"query": d.canary + " " + d.title, "k": 20})
				seen.WriteString(out)
				if readable[d.group] && !strings.Contains(out, d.canary) {
					t.Errorf("search for a readable canary %s did not find it: %s", d.canary, out)
				}
				_, out = call(t, cs, "get_document", map[string]any{"document_id": b.docIDs[d.group]})
				seen.WriteString(out)
				if readable[d.group] != strings.Contains(out, d.canary) {
					t.Errorf("get_document of %s's document: readable %v, got %s", d.group, readable[d.group], out)
				}
				_, out = call(t, cs, "ask", map[string]any{"question": "What does reference " + d.canary + " in " + d.title + " say?"})
				seen.WriteString(out)
			}
			for _, d := range groupDocs {
				if readable[d.group] {
					continue
				}
				for _, secret := range []string{d.canary, d.title, d.path} {
					if strings.Contains(seen.String(), secret) {
						t.Fatalf("%q of group %s reached a caller who may read only %v", secret, d.group, c.readable)
					}
				}
			}
		})
	}
}

func TestRefusedCredentials(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	expired := b.token(t, erik, nil, b.now.Add(-time.Hour))
	revoked, rec, err := b.tokens.Create(context.Background(), erik, nil, "laptop", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.tokens.Revoke(context.Background(), rec.ID); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, token, want string
		status            int
	}{
		{"expired", expired, "expired on " + b.now.Add(-time.Hour).UTC().Format(time.DateOnly) + ": ask an admin for a new one", 401},
		{"revoked", revoked, fmt.Sprintf("token %d was revoked on %s", rec.ID, b.now.UTC().Format(time.DateOnly)), 401},
		{"unknown", mcpserver.TokenPrefix + strings.Repeat("A", 43), "unknown token", 401},
		{"not a token", "hunter2", "not a cita token", 401},
		{"missing", "", "missing bearer token", 401},
		// erik is not in hr: a token narrowed to hr leaves nothing, refused rather than unfiltered.
		{"narrowed to nothing", b.token(t, erik, []string{"hr"}, time.Time{}), erik + " has no access group", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The SDK client shows the server's words.
			_, err := connect(context.Background(), b.url, tc.token)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("connect error %v, want one saying %q", err, tc.want)
			}
			// And so does the HTTP answer, for any other client.
			req, _ := http.NewRequest(http.MethodPost, b.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				ID    int `json:"id"`
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tc.status || body.ID != 7 || !strings.Contains(body.Error.Message, tc.want) ||
				!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
				t.Fatalf("status %d, id %d, message %q, WWW-Authenticate %q", resp.StatusCode, body.ID, body.Error.Message,
					resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestRevocationTakesEffectAtTheNextCall(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	tok, rec, err := b.tokens.Create(context.Background(), erik, nil, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	cs := mustConnect(t, b.url, tok)
	if res, _ := call(t, cs, "search", map[string]any{"query": "holidays"}); res.IsError {
		t.Fatal("search before revocation failed")
	}
	if _, err := b.tokens.Revoke(context.Background(), rec.ID); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "holidays"}})
	if err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("call after revocation: %v, want a refusal saying revoked", err)
	}
}

func TestCallerWithoutGroupsIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{defaultGroups: []string{}})
	_, err := connect(context.Background(), b.url, b.token(t, guest, nil, time.Time{}))
	if err == nil || !strings.Contains(err.Error(), guest+" has no access group") {
		t.Fatalf("connect error %v, want the no-group refusal", err)
	}
	// A mapped caller still works without default groups.
	cs := mustConnect(t, b.url, b.token(t, hanna, nil, time.Time{}))
	_, out := call(t, cs, "get_document", map[string]any{"document_id": b.docIDs["everyone"]})
	if !strings.Contains(out, "was not found") {
		t.Fatalf("without default groups hanna read the everyone document: %s", out)
	}
}

func TestAuditLinePerCall(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	tok, rec, err := b.tokens.Create(context.Background(), hanna, nil, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	cs := mustConnect(t, b.url, tok)
	call(t, cs, "search", map[string]any{"query": "salary band compensation"})
	call(t, cs, "get_document", map[string]any{"document_id": 424242})
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.audit.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err == nil && m["msg"] == "mcp call" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2:\n%s", len(lines), b.audit.String())
	}
	s, g := lines[0], lines[1]
	if s["tool"] != "search" || s["email"] != hanna || s["token_id"] != float64(rec.ID) || s["auth"] != "token" ||
		s["scope_key"] != "8:everyone;2:hr;5:staff" || s["results"].(float64) < 1 || s["outcome"] != "ok" || s["duration_ms"] == nil {
		t.Fatalf("search audit line = %v", s)
	}
	if g["tool"] != "get_document" || g["outcome"] != "refused" || g["results"] != float64(0) {
		t.Fatalf("get_document audit line = %v", g)
	}
	if log := b.audit.String(); strings.Contains(log, "CANARY-HR-M3X") || strings.Contains(log, "61,000") || strings.Contains(log, "salary band compensation") {
		t.Fatalf("the audit log holds document text or the query:\n%s", log)
	}
	list, err := b.tokens.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if list[0].ID != rec.ID || list[0].LastUsedAt.IsZero() {
		t.Fatalf("last use not recorded: %+v", list[0])
	}
}

func TestAskIsRateLimitedAndQueued(t *testing.T) {
	t.Parallel()
	queue := bot.NewQueue(1, -1)
	b := setup(t, setupOptions{askLimit: mcpserver.AskLimit{PerMinute: 1, Burst: 2}, queue: queue})
	cs := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	ask := func() (bool, string) {
		res, all := call(t, cs, "ask", map[string]any{"question": "When is the office closed?"})
		return res.IsError, all
	}
	// The only worker is taken by a chat answer: ask is refused as busy, not queued forever.
	release, err := queue.Acquire(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if isErr, out := ask(); !isErr || !strings.Contains(out, "busy") {
		t.Fatalf("with the queue full: %v %s", isErr, out)
	}
	release()
	if isErr, out := ask(); isErr {
		t.Fatalf("second ask (within the burst): %s", out)
	}
	if isErr, out := ask(); !isErr || !strings.Contains(out, "too many questions from "+erik) {
		t.Fatalf("third ask: %v %s", isErr, out)
	}
	// search is not limited.
	if res, _ := call(t, cs, "search", map[string]any{"query": "office"}); res.IsError {
		t.Fatal("search was rate limited")
	}
}

// An uncertain reply says so through the tool: hedged, with the closest passage cited.
func TestAskSaysWhenItIsUnsure(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	cs := mustConnect(t, b.url, b.token(t, erik, nil, time.Time{}))
	res, all := call(t, cs, "ask", map[string]any{"question": "Do production deploys freeze for the aquarium?"})
	if res.IsError {
		t.Fatalf("ask failed: %s", all)
	}
	var out mcpserver.AskOutput
	decode(t, res, &out)
	if out.Abstained || !out.Hedged || out.HedgeReason == "" || len(out.Sources) == 0 || !strings.HasPrefix(out.Answer, "I'm not sure") {
		t.Fatalf("answer = %+v, want the closest passage, hedged", out)
	}
}
