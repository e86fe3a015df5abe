package slackload

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
)

// FakeModel is a loopback OpenAI-compatible chat endpoint that streams a cited answer word by
// word, Interval apart, like a model generating. Each reply opens with "(ref N)", a number
// unique to the request, so the first streamed words seen on Slack can be matched with the
// moment the request reached the model: when retrieval had ended and the prompt was built.
type FakeModel struct {
	srv      *httptest.Server
	interval time.Duration

	mu      sync.Mutex
	seq     int
	arrived map[int]time.Time
}

// NewFakeModel starts the fake; URL is its base URL (with /v1), Close stops it.
func NewFakeModel(interval time.Duration) *FakeModel {
	m := &FakeModel{interval: interval, arrived: map[int]time.Time{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

// URL is the base URL for chat.base_url.
func (m *FakeModel) URL() string { return m.srv.URL + "/v1" }

// Close stops the fake.
func (m *FakeModel) Close() { m.srv.Close() }

// refPattern finds the reference number in streamed text.
var refPattern = regexp.MustCompile(`\(ref (\d+)\)`)

// Arrival returns when the request whose reply text holds "(ref N)" reached the model.
func (m *FakeModel) Arrival(text string) (time.Time, bool) {
	sub := refPattern.FindStringSubmatch(text)
	if sub == nil {
		return time.Time{}, false
	}
	var n int
	fmt.Sscan(sub[1], &n)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.arrived[n]
	return t, ok
}

func (m *FakeModel) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	m.mu.Lock()
	m.seq++
	n := m.seq
	m.arrived[n] = now
	m.mu.Unlock()
	words := append([]string{fmt.Sprintf("(ref %d)", n)}, strings.Fields("The handbook answers this in the cited section, which gives the details to follow [1].")...)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "fake", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": strings.Join(words, " ")}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": len(words), "total_tokens": 100 + len(words)}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "fake", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for i, word := range words {
		if i > 0 {
			word = " " + word
			select {
			case <-time.After(m.interval):
			case <-r.Context().Done():
				return
			}
		}
		send(map[string]any{"content": word}, nil)
	}
	send(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}
