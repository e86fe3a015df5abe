package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
)

// sleepRecorder replaces the retry loop's sleep: it records each requested wait and returns at
// once, so tests assert the wait chosen without spending it.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return context.Cause(ctx)
}

func (r *sleepRecorder) recorded() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.waits)
}

// newTestEmbedder returns an embedder pointed at srv whose retry sleeps are recorded, not spent.
func newTestEmbedder(t *testing.T, srv *fakeopenai.Server, adjust func(*Config)) (*Embedder, *sleepRecorder) {
	t.Helper()
	cfg := Config{BaseURL: srv.URL, APIKey: "sk-test", EmbeddingModel: "nomic-embed-text",
		Dimensions: fakeopenai.DefaultDimension, Timeout: 2 * time.Second, Logger: slog.New(slog.DiscardHandler)}
	if adjust != nil {
		adjust(&cfg)
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatalf("NewEmbedder: %v", err)
	}
	rec := &sleepRecorder{}
	e.retry.sleep = rec.sleep
	return e, rec
}

func TestEmbedBatchesAndKeepsOrder(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithShuffledEmbeddings())
	e, _ := newTestEmbedder(t, srv, func(c *Config) { c.BatchSize = 4 })

	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprintf("chunk %d about vacation policy", i)
	}
	texts[7] = "" // blank texts are sent as a space, which the server accepts
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(got) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
	}
	reqs := srv.Requests()
	var sizes []int
	for _, r := range reqs {
		sizes = append(sizes, len(r.Input))
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("Authorization header = %q", r.Header.Get("Authorization"))
		}
		if r.Dimensions != 0 {
			t.Errorf("dimensions = %d sent to a model that does not accept it", r.Dimensions)
		}
	}
	if !slices.Equal(sizes, []int{4, 4, 2}) {
		t.Errorf("batch sizes = %v, want [4 4 2]", sizes)
	}
	for i, text := range texts {
		if text == "" {
			text = " "
		}
		if want := fakeopenai.HashVector(text, fakeopenai.DefaultDimension); !slices.Equal(got[i], want) {
			t.Errorf("vector %d is not the vector of %q: order lost", i, text)
		}
	}
}

func TestEmbedNoTextsSendsNothing(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	e, _ := newTestEmbedder(t, srv, nil)
	got, err := e.Embed(context.Background(), nil)
	if err != nil || len(got) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("Embed(nil) = %v, %v with %d requests; want empty, nil, 0", got, err, len(srv.Requests()))
	}
}

func TestEmbedRequestsDimensionsFromModelsThatAcceptIt(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	e, _ := newTestEmbedder(t, srv, func(c *Config) { c.EmbeddingModel = "text-embedding-3-small"; c.Dimensions = 256 })
	got, err := e.Embed(context.Background(), []string{"hola"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(got[0]) != 256 || srv.Requests()[0].Dimensions != 256 {
		t.Errorf("vector length %d, dimensions sent %d; want 256 and 256", len(got[0]), srv.Requests()[0].Dimensions)
	}
	if info := e.Info(); info.Model != "text-embedding-3-small" || info.Dimension != 256 {
		t.Errorf("Info() = %+v", info)
	}
}

func TestEmbedDimensionMismatch(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithDimension(768))
	e, _ := newTestEmbedder(t, srv, func(c *Config) { c.Dimensions = 1024 })
	_, err := e.Embed(context.Background(), []string{"a", "b"})
	if !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("err = %v, want ErrDimensionMismatch", err)
	}
	for _, want := range []string{"768", "1024", "set Dimensions to 768", "re-index"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestEmbedRetryPolicy(t *testing.T) {
	t.Parallel()
	// A date a minute ahead: the subtest may wait its turn for many seconds on a loaded machine
	// (it runs in parallel), and the wait read from the date shrinks by as much.
	future := time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)
	tests := []struct {
		name         string
		failures     int
		status       int
		retryAfter   string
		maxRetries   int
		wantErr      []string // substrings; nil means success
		wantRequests int
		checkWaits   func(t *testing.T, waits []time.Duration)
	}{
		{name: "500 then success", failures: 1, status: 500, wantRequests: 2,
			checkWaits: func(t *testing.T, w []time.Duration) {
				if len(w) != 1 || w[0] < baseBackoff/2 || w[0] > baseBackoff {
					t.Errorf("waits = %v, want one backoff in [%s, %s]", w, baseBackoff/2, baseBackoff)
				}
			}},
		{name: "429 with Retry-After seconds", failures: 2, status: 429, retryAfter: "7", wantRequests: 3,
			checkWaits: func(t *testing.T, w []time.Duration) {
				if !slices.Equal(w, []time.Duration{7 * time.Second, 7 * time.Second}) {
					t.Errorf("waits = %v, want [7s 7s] from Retry-After", w)
				}
			}},
		{name: "503 with Retry-After date", failures: 1, status: 503, retryAfter: future, wantRequests: 2,
			checkWaits: func(t *testing.T, w []time.Duration) {
				if len(w) != 1 || w[0] < 1*time.Second || w[0] > time.Minute {
					t.Errorf("waits = %v, want one wait of up to a minute from the HTTP date", w)
				}
			}},
		{name: "backoff grows", failures: 3, status: 502, wantRequests: 4,
			checkWaits: func(t *testing.T, w []time.Duration) {
				for i, d := range w {
					step := baseBackoff << i
					if d < step/2 || d > step {
						t.Errorf("wait %d = %s, want in [%s, %s]", i, d, step/2, step)
					}
				}
			}},
		{name: "401 not retried", failures: 1, status: 401, wantRequests: 1,
			wantErr: []string{"rejected the API key (401)", "check OPENAI_API_KEY"}},
		{name: "404 not retried", failures: 1, status: 404, wantRequests: 1,
			wantErr: []string{"not found (404)", "/v1", "nomic-embed-text"}},
		{name: "400 not retried", failures: 1, status: 400, wantRequests: 1, wantErr: []string{"rejected the request (400)"}},
		{name: "retries exhausted", failures: 10, status: 500, maxRetries: 2, wantRequests: 3,
			wantErr: []string{"kept failing (500) after 3 attempt(s)"}},
		{name: "Retry-After too long", failures: 1, status: 429, retryAfter: "3600", wantRequests: 1,
			wantErr: []string{`asked to wait "3600"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t)
			srv.FailNext(tc.failures, tc.status, tc.retryAfter)
			e, rec := newTestEmbedder(t, srv, func(c *Config) { c.MaxRetries = tc.maxRetries })
			_, err := e.Embed(context.Background(), []string{"one", "two"})
			if got := len(srv.Requests()); got != tc.wantRequests {
				t.Errorf("requests = %d, want %d", got, tc.wantRequests)
			}
			if tc.wantErr == nil && err != nil {
				t.Fatalf("Embed: %v", err)
			}
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to mention %q", err, want)
				}
			}
			if tc.checkWaits != nil {
				tc.checkWaits(t, rec.recorded())
			}
		})
	}
}

// TestEmbedRetryAfterRealWait spends one real second to show the wait is actually slept.
func TestEmbedRetryAfterRealWait(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	srv.FailNext(1, http.StatusTooManyRequests, "1")
	e, _ := newTestEmbedder(t, srv, nil)
	e.retry.sleep = sleepContext
	start := time.Now()
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("retry came after %s, want at least the 1s Retry-After", elapsed)
	}
}

func TestEmbedTimeoutRetriesThenFails(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	srv.Delay(2 * time.Second)
	e, rec := newTestEmbedder(t, srv, func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 2 })
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms on each of 3 attempt(s)") {
		t.Fatalf("err = %v, want a timeout after 3 attempts", err)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("requests = %d, want 3", got)
	}
	if len(rec.recorded()) != 2 {
		t.Errorf("waits = %v, want 2 backoffs", rec.recorded())
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("took %s; the per-attempt timeout did not cut the slow requests", elapsed)
	}
}

func TestEmbedContextCancelStopsBackoff(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	srv.FailNext(10, http.StatusServiceUnavailable, "30")
	e, _ := newTestEmbedder(t, srv, nil)
	e.retry.sleep = sleepContext
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %s, want soon after the 100ms cancel (Retry-After was 30s)", elapsed)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("requests = %d, want 1", got)
	}
}

func TestEmbedAzureURL(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	e, _ := newTestEmbedder(t, srv, func(c *Config) {
		c.APIType, c.BaseURL, c.APIKey, c.APIVersion = "azure", srv.RootURL, "azure-key", "2024-06-01"
		c.EmbeddingModel, c.Dimensions = "text-embedding-3-large", 64
	})
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	r := srv.Requests()[0]
	if r.Path != "/openai/deployments/text-embedding-3-large/embeddings" || r.RawQuery != "api-version=2024-06-01" {
		t.Errorf("request = %s?%s, want Azure deployment path with api-version", r.Path, r.RawQuery)
	}
	if r.Header.Get("api-key") != "azure-key" || r.Header.Get("Authorization") != "" {
		t.Errorf("headers api-key=%q Authorization=%q, want the key in api-key only",
			r.Header.Get("api-key"), r.Header.Get("Authorization"))
	}
}

// OpenAI and Azure also send retry-after-ms; it is preferred to the whole-second Retry-After.
func TestEmbedHonoursRetryAfterMs(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			w.Header().Set("Retry-After-Ms", "250")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"model":"m"}`)
	}))
	t.Cleanup(srv.Close)
	e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", EmbeddingModel: "m", Dimensions: 2, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sleepRecorder{}
	e.retry.sleep = rec.sleep
	got, err := e.Embed(context.Background(), []string{"x"})
	if err != nil || !slices.Equal(got[0], []float32{0.6, 0.8}) {
		t.Fatalf("Embed = %v, %v", got, err)
	}
	if !slices.Equal(rec.recorded(), []time.Duration{250 * time.Millisecond}) {
		t.Errorf("waits = %v, want [250ms] from retry-after-ms", rec.recorded())
	}
}
