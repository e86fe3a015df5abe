package generate

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/openai"
)

// newChat returns the real go-openai based rag.ChatModel pointed at srv.
func newChat(t *testing.T, srv *fakeopenai.Server, maxRetries int) *openai.Chat {
	t.Helper()
	chat, err := openai.NewChat(openai.Config{
		BaseURL: srv.URL, ChatModel: "llama3.1:8b", MaxRetries: maxRetries, Timeout: 5 * time.Second,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("NewChat: %v", err)
	}
	return chat
}

func replyWith(text string) fakeopenai.Option {
	return fakeopenai.WithChatFunc(func(fakeopenai.Request) (string, *fakeopenai.HTTPError) { return text, nil })
}

const cited = "Full-time employees get 23 working days of vacation per year [1]. [1] and [2] disagree; [1] is the more recent."

func TestComposeStreams(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith(cited), fakeopenai.WithStreamInterval(time.Millisecond))
	req := rag.ComposeRequest{Question: "How many vacation days do I get?", Lang: "en", Sources: vacationSources()}
	var deltas []string
	comp, err := NewLLMComposer(newChat(t, srv, -1)).Compose(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatalf("Compose: %v", err)
	}
	if comp.Text != cited {
		t.Errorf("text = %q, want %q", comp.Text, cited)
	}
	if len(deltas) < 5 || strings.Join(deltas, "") != cited {
		t.Errorf("deltas = %q, want the reply in several pieces that join to it", deltas)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Stream {
		t.Fatalf("requests = %d (stream %v), want one streamed request", len(reqs), len(reqs) == 1 && reqs[0].Stream)
	}
	wantUsage(t, comp.Usage, reqs[0], cited)
	want := Messages(req)
	if got := reqs[0].Messages; len(got) != 2 || got[0].Content != want[0].Content || got[1].Content != want[1].Content {
		t.Errorf("messages on the wire differ from Messages(req)")
	}
	if reqs[0].MaxTokens != DefaultMaxTokens {
		t.Errorf("max_tokens = %d, want %d", reqs[0].MaxTokens, DefaultMaxTokens)
	}
}

func wantUsage(t *testing.T, got rag.Usage, req fakeopenai.Request, reply string) {
	t.Helper()
	if got.Model != "llama3.1:8b" || got.PromptTokens != fakeopenai.PromptTokens(req.Messages) ||
		got.CompletionTokens != fakeopenai.CompletionTokens(reply) || got.PromptTokens == 0 {
		t.Errorf("usage = %+v, want model llama3.1:8b and the server's %d/%d tokens", got,
			fakeopenai.PromptTokens(req.Messages), fakeopenai.CompletionTokens(reply))
	}
}

func TestComposeWithoutStreaming(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith("  "+cited+"\n"))
	comp, err := NewLLMComposer(newChat(t, srv, -1)).Compose(context.Background(),
		rag.ComposeRequest{Question: "How many vacation days do I get?", Lang: "en", Sources: vacationSources()}, nil)
	if err != nil {
		t.Fatalf("Compose: %v", err)
	}
	reqs := srv.Requests()
	if comp.Text != cited || len(reqs) != 1 || reqs[0].Stream {
		t.Fatalf("text %q, %d requests; want the trimmed reply from one non-streamed request", comp.Text, len(reqs))
	}
	wantUsage(t, comp.Usage, reqs[0], "  "+cited+"\n")
}

func TestComposeRetriesAfterRateLimit(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith(cited))
	srv.FailNext(1, http.StatusTooManyRequests, "1")
	start := time.Now()
	comp, err := NewLLMComposer(newChat(t, srv, 2)).Compose(context.Background(),
		rag.ComposeRequest{Question: "How many vacation days do I get?", Lang: "en", Sources: vacationSources()}, func(string) {})
	if err != nil {
		t.Fatalf("Compose after a 429: %v", err)
	}
	if comp.Text != cited || len(srv.Requests()) != 2 {
		t.Errorf("text %q after %d requests, want the answer on the second", comp.Text, len(srv.Requests()))
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("retried after %s, want the 1s Retry-After honoured", waited)
	}
}

func TestComposeReturnsServerErrors(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith(cited))
	srv.FailNext(1, http.StatusInternalServerError, "")
	comp, err := NewLLMComposer(newChat(t, srv, -1)).Compose(context.Background(),
		rag.ComposeRequest{Question: "q", Lang: "en", Sources: vacationSources()}, nil)
	var apiErr *goopenai.APIError
	if err == nil || comp != nil || !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusInternalServerError {
		t.Fatalf("Compose = %v, %v; want the 500 as an error", comp, err)
	}
}

func TestComposeWithoutSourcesSkipsTheModel(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	comp, err := NewLLMComposer(newChat(t, srv, -1)).Compose(context.Background(), rag.ComposeRequest{Question: "q", Lang: "en"}, nil)
	if err != nil || comp.Text != "" || len(srv.Requests()) != 0 {
		t.Errorf("Compose without sources = %+v, %v after %d requests; want empty text and no call", comp, err, len(srv.Requests()))
	}
}

// TestInjectionOnTheWire sends a planted instruction through the real client and checks the
// system message the server received is the golden one, byte for byte.
func TestInjectionOnTheWire(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith(cited))
	sources := vacationSources()
	sources[0].Content = injected
	if _, err := NewLLMComposer(newChat(t, srv, -1)).Compose(context.Background(),
		rag.ComposeRequest{Question: "How many vacation days do I get?", Lang: "en", Sources: sources}, nil); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "system_en.golden"))
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0].Messages
	if got[0].Role != "system" || got[0].Content != string(want) {
		t.Errorf("system message on the wire differs from the golden:\n%s", got[0].Content)
	}
	checkDelimiters(t, got[1].Content, sources)
}
