package rerank

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
)

var (
	query = "dias de vacaciones"
	docs  = []string{
		"El horario de oficina es de 9 a 18.",
		"Tienes 22 dias de vacaciones al año.",
		"Las vacaciones se piden con un mes de antelación.",
	}
)

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestRerankFlavors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		base     func(s *fakeopenai.Server) string
		flavor   string
		wantPath string
	}{
		{name: "cohere", base: func(s *fakeopenai.Server) string { return s.URL }, flavor: "", wantPath: "/v1/rerank"},
		{name: "jina alias", base: func(s *fakeopenai.Server) string { return s.URL + "/" }, flavor: "jina", wantPath: "/v1/rerank"},
		{name: "tei", base: func(s *fakeopenai.Server) string { return s.RootURL }, flavor: "tei", wantPath: "/rerank"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t)
			c := newTestClient(t, Config{BaseURL: tc.base(srv), APIKey: "rk", Model: "rerank-v3.5", Flavor: tc.flavor})
			got, err := c.Rerank(context.Background(), query, docs)
			if err != nil {
				t.Fatalf("Rerank: %v", err)
			}
			// The fake answers best first; the client must put scores back in input order.
			want := []float64{1.0 / 3, 1, 2.0 / 3} // shares of the words "dias", "de", "vacaciones"
			if !slices.Equal(got, want) {
				t.Errorf("scores = %v, want %v (input order)", got, want)
			}
			r := srv.Requests()[0]
			wantFlavor := map[string]string{"": "cohere", "jina": "cohere", "tei": "tei"}[tc.flavor]
			if r.Path != tc.wantPath || r.Flavor != wantFlavor || !slices.Equal(r.Documents, docs) || r.Query != query {
				t.Errorf("request path=%s flavor=%s docs=%q query=%q", r.Path, r.Flavor, r.Documents, r.Query)
			}
			if wantFlavor == "cohere" && (r.TopN != len(docs) || r.Model != "rerank-v3.5") {
				t.Errorf("top_n=%d model=%q, want every document scored by rerank-v3.5", r.TopN, r.Model)
			}
			if r.Header.Get("Authorization") != "Bearer rk" {
				t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
			}
		})
	}
}

func TestRerankErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		flavor  string
		setup   func(s *fakeopenai.Server)
		scores  fakeopenai.RerankFunc
		ctx     func() (context.Context, context.CancelFunc)
		wantErr string
	}{
		{name: "401", setup: func(s *fakeopenai.Server) { s.FailNext(1, http.StatusUnauthorized, "") },
			wantErr: "rejected the API key (401)"},
		{name: "500 quotes the body", setup: func(s *fakeopenai.Server) { s.FailNext(1, http.StatusInternalServerError, "") },
			wantErr: `answered 500: {"message":"Internal Server Error"}`},
		{name: "tei error body", flavor: "tei", setup: func(s *fakeopenai.Server) { s.FailNext(1, http.StatusRequestEntityTooLarge, "") },
			wantErr: `answered 413: {"error":"Request Entity Too Large"`},
		{name: "timeout", setup: func(s *fakeopenai.Server) { s.Delay(time.Second) }, wantErr: "timed out after 50ms (Timeout)"},
		{name: "caller cancels", setup: func(s *fakeopenai.Server) { s.Delay(time.Second) },
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 10*time.Millisecond)
			},
			wantErr: "context deadline exceeded"},
		{name: "handler error", scores: func(fakeopenai.Request) ([]float64, *fakeopenai.HTTPError) {
			return nil, &fakeopenai.HTTPError{Status: 400, Message: "too many documents"}
		}, wantErr: "answered 400"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []fakeopenai.Option
			if tc.scores != nil {
				opts = append(opts, fakeopenai.WithRerankFunc(tc.scores))
			}
			srv := fakeopenai.New(t, opts...)
			if tc.setup != nil {
				tc.setup(srv)
			}
			// 50 ms only for the case about it: a loaded machine can take longer than that to
			// answer an error over loopback, which then looked like a timeout.
			timeout := time.Minute
			if tc.name == "timeout" {
				timeout = 50 * time.Millisecond
			}
			c := newTestClient(t, Config{BaseURL: srv.URL, Model: "m", Flavor: tc.flavor, Timeout: timeout})
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			got, err := c.Rerank(ctx, query, docs)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
			if got != nil {
				t.Errorf("scores = %v on error, want nil so the pipeline keeps its fused order", got)
			}
		})
	}
}

func TestRerankNoDocumentsSendsNothing(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t)
	c := newTestClient(t, Config{BaseURL: srv.URL, Model: "m"})
	got, err := c.Rerank(context.Background(), query, nil)
	if err != nil || len(got) != 0 || len(srv.Requests()) != 0 {
		t.Errorf("Rerank(no documents) = %v, %v with %d requests", got, err, len(srv.Requests()))
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{BaseURL: "http://tei:8080", Flavor: "TEI"}, ""},
		{Config{BaseURL: "https://api.cohere.com/v2"}, "Model is required"},
		{Config{BaseURL: "https://api.jina.ai/v1/rerank", Model: "m"}, "already ends in /rerank"},
		{Config{BaseURL: "tei:8080", Flavor: "tei"}, "not an http(s) URL"},
		{Config{BaseURL: "http://x", Model: "m", Flavor: "voyage"}, `Flavor "voyage"`},
	}
	for _, tc := range tests {
		_, err := New(tc.cfg)
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("New(%+v) err = %v, want %q", tc.cfg, err, tc.wantErr)
		}
	}
}
