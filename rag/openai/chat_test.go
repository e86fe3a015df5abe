package openai

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

const answer = "Las vacaciones son 22 días hábiles por año [1]."

func newTestChat(t *testing.T, srv *fakeopenai.Server, adjust func(*Config)) (*Chat, *sleepRecorder) {
	t.Helper()
	cfg := Config{BaseURL: srv.URL, APIKey: "sk-test", ChatModel: "llama3.1:8b", Timeout: 2 * time.Second, Logger: slog.New(slog.DiscardHandler)}
	if adjust != nil {
		adjust(&cfg)
	}
	c, err := NewChat(cfg)
	if err != nil {
		t.Fatalf("NewChat: %v", err)
	}
	rec := &sleepRecorder{}
	c.retry.sleep = rec.sleep
	return c, rec
}

func fixedReply(reply string) fakeopenai.ChatFunc {
	return func(fakeopenai.Request) (string, *fakeopenai.HTTPError) { return reply, nil }
}

var question = rag.ChatRequest{
	Messages: []rag.ChatMessage{
		{Role: "system", Content: "Answer only from the sources."},
		{Role: "user", Content: "¿Cuántos días de vacaciones tengo?"},
	},
	MaxTokens: 300,
}

func wantUsage(t *testing.T, got *rag.ChatResponse, reply string) {
	t.Helper()
	msgs := []fakeopenai.Message{{Content: question.Messages[0].Content}, {Content: question.Messages[1].Content}}
	if got.PromptTokens != fakeopenai.PromptTokens(msgs) || got.CompletionTokens != fakeopenai.CompletionTokens(reply) {
		t.Errorf("tokens = %d/%d, want the server's %d/%d", got.PromptTokens, got.CompletionTokens,
			fakeopenai.PromptTokens(msgs), fakeopenai.CompletionTokens(reply))
	}
}

func TestChatComplete(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithChatFunc(fixedReply(answer)))
	srv.FailNext(1, http.StatusInternalServerError, "")
	c, rec := newTestChat(t, srv, nil)
	got, err := c.Chat(context.Background(), question, nil)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if got.Text != answer || got.Model != "llama3.1:8b" {
		t.Errorf("response = %+v", got)
	}
	wantUsage(t, got, answer)
	reqs := srv.Requests()
	if len(reqs) != 2 || len(rec.recorded()) != 1 {
		t.Fatalf("requests = %d, waits = %v; want a retry after the 500", len(reqs), rec.recorded())
	}
	r := reqs[1]
	if r.Stream || r.MaxTokens != 300 || len(r.Messages) != 2 || r.Messages[1].Content != question.Messages[1].Content {
		t.Errorf("request = %+v", r)
	}
	if r.Temperature <= 0 || r.Temperature > 1e-30 {
		t.Errorf("temperature sent = %g, want a near-zero value instead of the server default", r.Temperature)
	}
}

func TestChatStreamDeliversDeltasInOrder(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithChatFunc(fixedReply(answer)))
	srv.FailNext(1, http.StatusTooManyRequests, "2")
	c, rec := newTestChat(t, srv, nil)
	var deltas []string
	got, err := c.Chat(context.Background(), question, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if want := fakeopenai.StreamDeltas(answer); !slices.Equal(deltas, want) || len(want) < 5 {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	if got.Text != answer {
		t.Errorf("text = %q, want %q", got.Text, answer)
	}
	wantUsage(t, got, answer)
	if !slices.Equal(rec.recorded(), []time.Duration{2 * time.Second}) {
		t.Errorf("waits = %v, want [2s] from Retry-After on the initial request", rec.recorded())
	}
	r := srv.Requests()[1]
	if !r.Stream || !r.IncludeUsage {
		t.Errorf("stream=%v include_usage=%v, want both", r.Stream, r.IncludeUsage)
	}
}

// A server that rejects stream_options still streams; the usage is then estimated.
func TestChatStreamWithoutUsageEstimatesTokens(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithChatFunc(func(r fakeopenai.Request) (string, *fakeopenai.HTTPError) {
		if r.IncludeUsage {
			return "", &fakeopenai.HTTPError{Status: 400, Message: "Unrecognized request argument supplied: stream_options"}
		}
		return answer, nil
	}))
	c, _ := newTestChat(t, srv, nil)
	var streamed strings.Builder
	got, err := c.Chat(context.Background(), question, func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if got.Text != answer || streamed.String() != answer {
		t.Errorf("text %q, streamed %q", got.Text, streamed.String())
	}
	if got.CompletionTokens != estimateTokens(answer) || got.PromptTokens != estimatePromptTokens(question.Messages) {
		t.Errorf("tokens = %d/%d, want estimates %d/%d", got.PromptTokens, got.CompletionTokens,
			estimatePromptTokens(question.Messages), estimateTokens(answer))
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (with then without stream_options)", n)
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		stream     bool
		status     int
		delay      time.Duration
		wantErr    string
		wantTrials int
	}{
		{name: "401 not retried", status: 401, wantErr: "rejected the API key (401)", wantTrials: 1},
		{name: "401 streaming not retried", stream: true, status: 401, wantErr: "rejected the API key (401)", wantTrials: 1},
		{name: "stream start timeout", stream: true, delay: time.Second, wantErr: "timed out after 50ms on each of 2", wantTrials: 2},
		{name: "complete timeout", delay: time.Second, wantErr: "timed out after 50ms on each of 2", wantTrials: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t)
			if tc.status != 0 {
				srv.FailNext(5, tc.status, "")
			}
			srv.Delay(tc.delay)
			// A 50 ms timeout only where the test is about timing out: a loaded machine can take
			// longer than that to answer a 401 over loopback, which then looked like a timeout.
			timeout := time.Minute
			if tc.delay > 0 {
				timeout = 50 * time.Millisecond
			}
			c, _ := newTestChat(t, srv, func(c *Config) { c.Timeout = timeout; c.MaxRetries = 1 })
			var onDelta func(string)
			if tc.stream {
				onDelta = func(string) {}
			}
			_, err := c.Chat(context.Background(), question, onDelta)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
			if n := len(srv.Requests()); n != tc.wantTrials {
				t.Errorf("requests = %d, want %d", n, tc.wantTrials)
			}
		})
	}
}

func TestChatAzureDeploymentPath(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	c, _ := newTestChat(t, srv, func(c *Config) {
		c.APIType, c.BaseURL, c.APIKey, c.ChatModel = "azure", srv.RootURL, "azure-key", "gpt-3.5-turbo"
	})
	if _, err := c.Chat(context.Background(), question, func(string) {}); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	r := srv.Requests()[0]
	// go-openai's DefaultAzureConfig maps gpt-3.5-turbo to the deployment gpt-35-turbo.
	if r.Path != "/openai/deployments/gpt-35-turbo/chat/completions" || !strings.HasPrefix(r.RawQuery, "api-version=") {
		t.Errorf("request = %s?%s", r.Path, r.RawQuery)
	}
}

// Reasoning models reject max_tokens and temperature; the request is adapted before sending.
func TestChatReasoningModelRequest(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	c, _ := newTestChat(t, srv, func(c *Config) { c.ChatModel = "o3-mini" })
	req := question
	req.Temperature = 0.2
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["max_completion_tokens"] != float64(300) || body["max_tokens"] != nil || body["temperature"] != nil {
		t.Errorf("body = %v, want max_completion_tokens 300 and no max_tokens or temperature", body)
	}
}

func TestChatRequiresMessages(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	c, _ := newTestChat(t, srv, nil)
	if _, err := c.Chat(context.Background(), rag.ChatRequest{}, nil); err == nil {
		t.Error("Chat with no messages succeeded")
	}
	if len(srv.Requests()) != 0 {
		t.Error("an empty request was sent")
	}
}

// Timeout bounds the wait for each streamed chunk, not the whole answer: a slow but steady stream
// succeeds, a stalled one fails without being retried.
func TestChatStreamIdleTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		interval time.Duration
		wantErr  string
	}{
		// Gaps well apart from Timeout on both sides: a loaded machine delays chunks by a few
		// hundred milliseconds now and then.
		{name: "steady stream longer than Timeout", interval: 150 * time.Millisecond},
		{name: "stalled stream", interval: 3 * time.Second, wantErr: "stalled: no data for 1s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, fakeopenai.WithChatFunc(fixedReply(answer)), fakeopenai.WithStreamInterval(tc.interval))
			c, _ := newTestChat(t, srv, func(c *Config) { c.Timeout = time.Second })
			start := time.Now()
			var n int
			got, err := c.Chat(context.Background(), question, func(string) { n++ })
			if tc.wantErr == "" {
				if err != nil || got.Text != answer {
					t.Fatalf("Chat = %v, %v", got, err)
				}
				if elapsed := time.Since(start); elapsed < time.Second {
					t.Errorf("stream took %s, not longer than Timeout: the test proves nothing", elapsed)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("requests = %d, want 1: a started stream is not retried", len(srv.Requests()))
			}
		})
	}
}

func TestChatStreamStopsWhenCallerCancels(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithChatFunc(fixedReply(answer)), fakeopenai.WithStreamInterval(30*time.Millisecond))
	c, _ := newTestChat(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var deltas int
	_, err := c.Chat(ctx, question, func(string) { deltas++; cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if deltas != 1 {
		t.Errorf("deltas after cancel = %d, want 1", deltas)
	}
}
