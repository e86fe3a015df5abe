package fakeopenai

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestStreamWireFormat(t *testing.T) {
	t.Parallel()
	for _, includeUsage := range []bool{false, true} {
		srv := New(t, WithChatFunc(func(Request) (string, *HTTPError) { return "uno dos", nil }))
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"a b c"}]`
		if includeUsage {
			body += `,"stream_options":{"include_usage":true}`
		}
		resp, text := post(t, srv.URL+"/chat/completions", body+"}")
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type = %q", ct)
		}
		events := strings.Split(strings.TrimSuffix(text, "\n\n"), "\n\n")
		if last := events[len(events)-1]; last != "data: [DONE]" {
			t.Fatalf("last event = %q, want data: [DONE]", last)
		}
		var content strings.Builder
		var usage map[string]int
		for _, ev := range events[:len(events)-1] {
			var chunk struct {
				Choices []struct {
					Delta struct{ Content string }
				}
				Usage map[string]int
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &chunk); err != nil {
				t.Fatalf("event %q: %v", ev, err)
			}
			for _, c := range chunk.Choices {
				content.WriteString(c.Delta.Content)
			}
			if chunk.Usage != nil {
				usage = chunk.Usage
			}
		}
		if content.String() != "uno dos" {
			t.Errorf("streamed content = %q", content.String())
		}
		if includeUsage != (usage != nil) || (usage != nil && (usage["prompt_tokens"] != 3 || usage["completion_tokens"] != 2)) {
			t.Errorf("include_usage=%v: usage = %v", includeUsage, usage)
		}
	}
}

func TestFaultsAndRecording(t *testing.T) {
	t.Parallel()
	srv := New(t)
	srv.FailNext(2, http.StatusTooManyRequests, "3")
	for i := range 3 {
		resp, body := post(t, srv.URL+"/embeddings", `{"model":"e","input":["x","y"],"dimensions":4}`)
		wantStatus := map[bool]int{true: 429, false: 200}[i < 2]
		if resp.StatusCode != wantStatus {
			t.Fatalf("request %d: status %d, want %d (%s)", i, resp.StatusCode, wantStatus, body)
		}
		if i < 2 && (resp.Header.Get("Retry-After") != "3" || !strings.Contains(body, `"error":{`)) {
			t.Errorf("request %d: Retry-After %q body %s", i, resp.Header.Get("Retry-After"), body)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[2].Dimensions != 4 || len(reqs[2].Input) != 2 || reqs[2].Endpoint != "embeddings" {
		t.Errorf("recorded %+v", reqs)
	}

	srv.Delay(100 * time.Millisecond)
	start := time.Now()
	post(t, srv.URL+"/embeddings", `{"model":"e","input":"x"}`)
	if time.Since(start) < 100*time.Millisecond {
		t.Errorf("Delay not applied")
	}
	srv.Delay(0)
	if resp, _ := post(t, srv.URL+"/nothing", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: status %d", resp.StatusCode)
	}
	if resp, _ := post(t, srv.URL+"/embeddings", `{"model":"e","input":[""]}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("empty input string: status %d, want 400 as OpenAI answers", resp.StatusCode)
	}
}

func TestStreamDeltasConcatenate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "one", "  lead and  double  spaces ", "línea\nnueva [1]."} {
		if got := strings.Join(StreamDeltas(s), ""); got != s {
			t.Errorf("StreamDeltas(%q) joins to %q", s, got)
		}
	}
}

// TestFuncFailuresReachTheClient: a Func's error, or an answer with the wrong number of results,
// comes back as an error in the endpoint's own shape.
func TestFuncFailuresReachTheClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opt        Option
		path, body string
		wantStatus int
		wantBody   string
	}{
		{"embed error", WithEmbedFunc(func(Request) ([][]float32, *HTTPError) { return nil, &HTTPError{Status: 503, Message: "busy"} }),
			"/embeddings", `{"model":"e","input":["x"]}`, 503, `"message":"busy"`},
		{"embed count", WithEmbedFunc(func(Request) ([][]float32, *HTTPError) { return [][]float32{{1}, {2}}, nil }),
			"/embeddings", `{"model":"e","input":["x"]}`, 500, `fake EmbedFunc returned 2 vectors for 1 inputs`},
		{"rerank error", WithRerankFunc(func(Request) ([]float64, *HTTPError) { return nil, &HTTPError{Status: 400, Message: "bad"} }),
			"/rerank", `{"model":"r","query":"q","documents":["a","b"]}`, 400, `{"message":"bad"}`},
		{"rerank count", WithRerankFunc(func(Request) ([]float64, *HTTPError) { return []float64{1}, nil }),
			"/rerank", `{"model":"r","query":"q","documents":["a","b"]}`, 500, `fake RerankFunc returned 1 scores for 2 documents`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := New(t, tt.opt)
			resp, body := post(t, srv.URL+tt.path, tt.body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
				t.Errorf("status %d body %s, want %d with %s", resp.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}
