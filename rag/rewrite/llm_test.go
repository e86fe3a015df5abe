package rewrite

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/openai"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// newLLM returns an LLM rewriter whose model is the real go-openai client against srv.
func newLLM(t *testing.T, srv *fakeopenai.Server) *LLM {
	t.Helper()
	chat, err := openai.NewChat(openai.Config{
		BaseURL: srv.URL, ChatModel: "llama3.1:8b", MaxRetries: -1, Timeout: 5 * time.Second,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("NewChat: %v", err)
	}
	return NewLLM(chat, slog.New(slog.DiscardHandler))
}

func reply(text string) fakeopenai.Option {
	return fakeopenai.WithChatFunc(func(fakeopenai.Request) (string, *fakeopenai.HTTPError) { return text, nil })
}

var deployThread = []rag.Turn{
	{Role: "user", Text: "Who owns the payments service?"},
	{Role: "assistant", Text: "The payments team, led by Ana [1]."},
	{Role: "user", Text: "Where is its runbook?"},
	{Role: "assistant", Text: "In the SRE wiki [1]."},
	{Role: "user", Text: "How do I deploy billing-api to production?"},
	{Role: "assistant", Text: "Run make deploy ENV=prod after the change is approved [1]."},
	{Role: "user", Text: "Who approves it?"},
	{Role: "assistant", Text: "The on-call SRE [2]."},
}

func TestLLMRewritesFollowUp(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, reply("Standalone question: \"How do I deploy billing-api to staging?\"\n"))
	got, err := newLLM(t, srv).Rewrite(context.Background(), "and for staging?", deployThread)
	if err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	if got != "How do I deploy billing-api to staging?" {
		t.Errorf("Rewrite = %q, want the model's question without label and quotes", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model calls = %d, want 1", len(reqs))
	}
	r := reqs[0]
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" || r.Stream {
		t.Fatalf("request messages = %+v (stream %v), want system + user, not streamed", r.Messages, r.Stream)
	}
	sys, user := r.Messages[0].Content, r.Messages[1].Content
	for _, want := range []string{"ONLY a JSON object", "in English", "in Spanish", "Do not answer"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	// The last six turns are sent, oldest first; the two before them are not.
	if strings.Contains(user, "Who owns the payments service?") || strings.Contains(user, "led by Ana") {
		t.Errorf("user message holds turns older than the last %d:\n%s", DefaultMaxTurns, user)
	}
	wantOrder := []string{"User: Where is its runbook?", "Assistant: In the SRE wiki [1].",
		"User: How do I deploy billing-api to production?", "Assistant: The on-call SRE [2].", "Last message: and for staging?"}
	at := 0
	for _, w := range wantOrder {
		i := strings.Index(user[at:], w)
		if i < 0 {
			t.Fatalf("user message lacks %q after offset %d:\n%s", w, at, user)
		}
		at += i + len(w)
	}
	if r.MaxTokens != rewriteMaxTokens {
		t.Errorf("max_tokens = %d, want %d", r.MaxTokens, rewriteMaxTokens)
	}
}

func TestLLMSkipsStandaloneQuestions(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, reply("should not be called"))
	l := newLLM(t, srv)
	for _, q := range []string{"How many vacation days do I get?", "¿Quién aprueba los gastos de viaje?"} {
		got, err := l.Rewrite(context.Background(), q, deployThread)
		if err != nil || got != q {
			t.Errorf("Rewrite(%q) = %q, %v; want it unchanged", q, got, err)
		}
	}
	if _, err := l.Rewrite(context.Background(), "and for staging?", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("model calls = %d, want none for standalone questions and empty history", n)
	}
}

func TestLLMAsksInTheQuestionsLanguage(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, reply("¿Cómo despliego billing-api en staging?"))
	got, err := newLLM(t, srv).Rewrite(context.Background(), "¿y en staging?", deployThread)
	if err != nil || got != "¿Cómo despliego billing-api en staging?" {
		t.Fatalf("Rewrite = %q, %v", got, err)
	}
	if sys := srv.Requests()[0].Messages[0].Content; !strings.Contains(sys, "in Spanish") {
		t.Errorf("system prompt for a Spanish question does not ask for Spanish:\n%s", sys)
	}
}

func TestLLMFallsBackToOffline(t *testing.T) {
	t.Parallel()
	offline, _ := Offline{}.Rewrite(context.Background(), "and for staging?", deployThread)
	if offline == "and for staging?" {
		t.Fatal("the offline rewrite must differ from the question for this test to tell them apart")
	}
	tests := []struct {
		name  string
		setup func(*fakeopenai.Server)
		reply string
	}{
		{name: "server error", setup: func(s *fakeopenai.Server) { s.FailNext(1, http.StatusInternalServerError, "") }, reply: "unused"},
		{name: "empty reply", reply: "  \n "},
		{name: "overlong reply", reply: strings.Repeat("This is not one question but an essay. ", 40)},
		{name: "only quotes", reply: `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, reply(tt.reply))
			if tt.setup != nil {
				tt.setup(srv)
			}
			got, err := newLLM(t, srv).Rewrite(context.Background(), "and for staging?", deployThread)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if got != offline {
				t.Errorf("Rewrite = %q, want the offline rewrite %q", got, offline)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("model calls = %d, want 1", len(srv.Requests()))
			}
		})
	}
}

func TestCleanRewrite(t *testing.T) {
	t.Parallel()
	q := "and for staging?"
	tests := []struct {
		reply, want string
		ok          bool
	}{
		{"How do I deploy to staging?", "How do I deploy to staging?", true},
		{"  \"How do I deploy to staging?\"  ", "How do I deploy to staging?", true},
		{"Rewritten question: “How do I deploy to staging?”", "How do I deploy to staging?", true},
		{"PREGUNTA: «¿Cómo despliego en staging?»", "¿Cómo despliego en staging?", true},
		{"\n\n**How do I deploy to staging?**\nThis replaces 'it' with the service.", "How do I deploy to staging?", true},
		{"", "", false},
		{"Question: ''", "", false},
		{strings.Repeat("x", 3*len(q)+201), "", false},
	}
	for _, tt := range tests {
		got, ok := cleanRewrite(tt.reply, q)
		if got != tt.want || ok != tt.ok {
			t.Errorf("cleanRewrite(%q) = %q, %v; want %q, %v", tt.reply, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRewritePromptGolden(t *testing.T) {
	t.Parallel()
	msgs := RewriteMessages("and for staging?", deployThread, DefaultMaxTurns)
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("=== " + m.Role + "\n" + m.Content + "\n")
	}
	checkGolden(t, "rewrite_prompt.golden", b.String())
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run go test -update if the change is intended):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestLLMWritesTheTranslationInTheSameCall(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, reply(`{"query": "¿Cómo despliego billing-api en staging?", "translation": "How do I deploy billing-api to staging?"}`))
	got, err := newLLM(t, srv).RewriteTranslated(context.Background(), "¿y en staging?", deployThread)
	if err != nil {
		t.Fatal(err)
	}
	want := rag.Rewritten{Query: "¿Cómo despliego billing-api en staging?", Translation: "How do I deploy billing-api to staging?"}
	if got != want {
		t.Errorf("RewriteTranslated = %+v, want %+v", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model calls = %d, want 1 (rewrite and translation in one call)", len(reqs))
	}
	r := reqs[0]
	if r.ResponseFormat != "json_schema" || r.SchemaName != "standalone_query" || !strings.Contains(string(r.Schema), `"translation"`) {
		t.Errorf("response_format = %q %q %s, want the standalone_query JSON schema", r.ResponseFormat, r.SchemaName, r.Schema)
	}
	if sys := r.Messages[0].Content; !strings.Contains(sys, "in Spanish, the language of the last message") || !strings.Contains(sys, "in English, for searching") {
		t.Errorf("system prompt does not ask for Spanish then English:\n%s", sys)
	}
}

func TestLLMReadsRepliesThatIgnoreTheSchema(t *testing.T) {
	t.Parallel()
	offline, _ := Offline{}.Rewrite(context.Background(), "and for staging?", deployThread)
	tests := []struct {
		name, reply string
		want        rag.Rewritten
	}{
		{"plain text", "How do I deploy billing-api to staging?", rag.Rewritten{Query: "How do I deploy billing-api to staging?"}},
		{"fenced JSON", "```json\n{\"query\": \"How do I deploy billing-api to staging?\", \"translation\": \"¿Cómo despliego billing-api en staging?\"}\n```",
			rag.Rewritten{Query: "How do I deploy billing-api to staging?", Translation: "¿Cómo despliego billing-api en staging?"}},
		{"no translation", `{"query": "How do I deploy billing-api to staging?", "translation": ""}`, rag.Rewritten{Query: "How do I deploy billing-api to staging?"}},
		{"broken JSON", `{"query": "How do I deploy`, rag.Rewritten{Query: offline}},
		{"empty query", `{"query": "", "translation": "¿Cómo despliego?"}`, rag.Rewritten{Query: offline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := newLLM(t, fakeopenai.New(t, reply(tt.reply))).RewriteTranslated(context.Background(), "and for staging?", deployThread)
			if err != nil || got != tt.want {
				t.Errorf("RewriteTranslated = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
