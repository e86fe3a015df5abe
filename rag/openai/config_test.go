package openai

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"Sun, 01 Mar 2026 12:00:10 GMT", 10 * time.Second, true},
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0, true}, // in the past
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, ok := parseRetryAfter(tc.in, now)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("parseRetryAfter(%q) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// FuzzParseRetryAfter: the header is outside input; parsing must never panic or go negative.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"5", "1e3", "Sun, 01 Mar 2026 12:00:10 GMT", "NaN", "-0", "Inf"} {
		f.Add(s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := parseRetryAfter(s, now); ok && d < 0 {
			t.Errorf("parseRetryAfter(%q) = %s, negative", s, d)
		}
	})
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // empty: valid
	}{
		{name: "ollama", cfg: Config{BaseURL: "http://localhost:11434/v1", EmbeddingModel: "nomic-embed-text", Dimensions: 768}},
		{name: "openai default needs key", cfg: Config{EmbeddingModel: "m", Dimensions: 3}, wantErr: "APIKey is required"},
		{name: "bare host", cfg: Config{BaseURL: "http://localhost:11434", EmbeddingModel: "m", Dimensions: 3},
			wantErr: "use http://localhost:11434/v1"},
		{name: "endpoint pasted", cfg: Config{BaseURL: "http://vllm:8000/v1/embeddings", EmbeddingModel: "m", Dimensions: 3},
			wantErr: `drop "/embeddings"`},
		{name: "not a URL", cfg: Config{BaseURL: "localhost:11434/v1", EmbeddingModel: "m", Dimensions: 3},
			wantErr: "not an http(s) URL"},
		{name: "azure needs base URL", cfg: Config{APIType: "azure", APIKey: "k", EmbeddingModel: "m", Dimensions: 3},
			wantErr: "BaseURL is required"},
		{name: "azure bare host is fine", cfg: Config{APIType: "Azure", BaseURL: "https://r.openai.azure.com", APIKey: "k",
			EmbeddingModel: "m", Dimensions: 3}},
		{name: "unknown type", cfg: Config{APIType: "anthropic", BaseURL: "http://x/v1", EmbeddingModel: "m", Dimensions: 3},
			wantErr: `APIType "anthropic"`},
		{name: "dimensions required", cfg: Config{BaseURL: "http://x/v1", EmbeddingModel: "m"}, wantErr: "Dimensions is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewEmbedder(tc.cfg)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("NewEmbedder: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
	if _, err := NewChat(Config{BaseURL: "http://x/v1"}); err == nil || !strings.Contains(err.Error(), "ChatModel is required") {
		t.Errorf("NewChat without ChatModel: err = %v", err)
	}
}

// A server that is not listening is a configuration problem: no retries, and a message that says
// to check BaseURL.
func TestUnreachableServerIsNotRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e, err := NewEmbedder(Config{BaseURL: "http://" + addr + "/v1", EmbeddingModel: "m", Dimensions: 3})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sleepRecorder{}
	e.retry.sleep = rec.sleep
	_, err = e.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the embedding endpoint") {
		t.Errorf("err = %v, want a cannot-reach message", err)
	}
	if len(rec.recorded()) != 0 {
		t.Errorf("waits = %v, want no retries", rec.recorded())
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	for n := range 40 {
		step := min(baseBackoff<<min(n, 10), maxBackoff)
		for range 50 {
			if d := backoff(n); d < step/2 || d > step {
				t.Fatalf("backoff(%d) = %s, want in [%s, %s]", n, d, step/2, step)
			}
		}
	}
}
