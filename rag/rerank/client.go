// Package rerank implements rag.Reranker over the /rerank HTTP API shared by Cohere, Jina and
// Hugging Face Text Embeddings Inference (TEI). Errors are returned, not retried: the pipeline
// falls back to its fused order, which is better than making the asker wait.
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Flavors of the /rerank wire format.
const (
	// FlavorCohere is {"model","query","documents","top_n"} -> {"results":[{"index","relevance_score"}]};
	// Cohere (v1 and v2) and Jina speak it.
	FlavorCohere = "cohere"
	// FlavorTEI is {"query","texts"} -> [{"index","score"}], Hugging Face TEI's /rerank.
	FlavorTEI = "tei"
)

// DefaultTimeout bounds a rerank call when Config.Timeout is zero. Reranking sits on the answer
// path, so it is short.
const DefaultTimeout = 10 * time.Second

// errTimeout is the cause of a call's context when Config.Timeout runs out.
var errTimeout = errors.New("rerank timeout")

// maxErrorBody is how much of an error response is quoted in the error.
const maxErrorBody = 300

// Config configures a Client.
type Config struct {
	// BaseURL is the API root; "/rerank" is appended: https://api.cohere.com/v2,
	// https://api.jina.ai/v1, http://tei:8080.
	BaseURL string
	// APIKey is sent as a bearer token when set (TEI usually needs none).
	APIKey string
	// Model names the reranker, e.g. "rerank-v3.5" or "jina-reranker-v2-base-multilingual"; TEI
	// serves one model and ignores it.
	Model string
	// Flavor is FlavorCohere (default, also Jina) or FlavorTEI.
	Flavor string
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient is used when set.
	HTTPClient *http.Client
	// Logger receives debug lines; nil means slog.Default().
	Logger *slog.Logger
}

// Client is a rag.Reranker. It is safe for concurrent use.
type Client struct {
	url     string
	apiKey  string
	model   string
	flavor  string
	timeout time.Duration
	http    *http.Client
	logger  *slog.Logger
}

var _ rag.Reranker = (*Client)(nil)

// New returns a Client for cfg, or an error naming the Config field to fix.
func New(cfg Config) (*Client, error) {
	flavor := strings.ToLower(strings.TrimSpace(cfg.Flavor))
	if flavor == "" || flavor == "jina" {
		flavor = FlavorCohere
	}
	var errs []error
	if flavor != FlavorCohere && flavor != FlavorTEI {
		errs = append(errs, fmt.Errorf("Flavor %q is not supported: use %q (Cohere, Jina) or %q (Hugging Face TEI)",
			cfg.Flavor, FlavorCohere, FlavorTEI))
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("BaseURL %q is not an http(s) URL: use e.g. https://api.cohere.com/v2 or http://tei:8080", cfg.BaseURL))
	} else if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/rerank") {
		errs = append(errs, fmt.Errorf("BaseURL %q already ends in /rerank: give the API root, /rerank is appended", cfg.BaseURL))
	}
	if flavor == FlavorCohere && cfg.Model == "" {
		errs = append(errs, errors.New("Model is required for the cohere flavor: e.g. rerank-v3.5 or jina-reranker-v2-base-multilingual"))
	}
	if cfg.Timeout < 0 {
		errs = append(errs, fmt.Errorf("Timeout %s is negative: use 0 for the default (%s)", cfg.Timeout, DefaultTimeout))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("rerank config: %w", errors.Join(errs...))
	}
	c := &Client{
		url:     strings.TrimRight(cfg.BaseURL, "/") + "/rerank",
		apiKey:  cfg.APIKey,
		model:   cfg.Model,
		flavor:  flavor,
		timeout: cfg.Timeout,
		http:    cfg.HTTPClient,
		logger:  cfg.Logger,
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c, nil
}

// Rerank returns one relevance score per document, in input order (higher is more relevant). It
// returns an error, and no scores, when the call fails, times out, or the answer does not score
// every document exactly once.
func (c *Client) Rerank(ctx context.Context, query string, documents []string) ([]float64, error) {
	if len(documents) == 0 {
		return []float64{}, nil
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errTimeout)
	defer cancel()
	start := time.Now()

	body, err := json.Marshal(c.requestBody(query, documents))
	if err != nil {
		return nil, fmt.Errorf("rerank: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errTimeout) {
			return nil, fmt.Errorf("rerank %s timed out after %s (Timeout): %w", c.url, c.timeout, err)
		}
		return nil, fmt.Errorf("rerank %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	payload, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("rerank %s: read response: %w", c.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp.StatusCode, payload)
	}
	scores, err := parseScores(c.flavor, payload, len(documents))
	if err != nil {
		return nil, fmt.Errorf("rerank %s: %w", c.url, err)
	}
	c.logger.DebugContext(ctx, "reranked", slog.Int("documents", len(documents)),
		slog.Duration("elapsed", time.Since(start)))
	return scores, nil
}

// requestBody builds the flavor's JSON request. top_n asks for every document, so every one gets a
// score; TEI is asked to truncate inputs longer than its model accepts instead of failing.
func (c *Client) requestBody(query string, documents []string) any {
	if c.flavor == FlavorTEI {
		return map[string]any{"query": query, "texts": documents, "truncate": true}
	}
	return map[string]any{"model": c.model, "query": query, "documents": documents, "top_n": len(documents)}
}

// statusError describes a non-200 answer, quoting the start of the body.
func (c *Client) statusError(status int, body []byte) error {
	quoted := strings.TrimSpace(string(body))
	if len(quoted) > maxErrorBody {
		quoted = quoted[:maxErrorBody] + "…"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("rerank endpoint %s rejected the API key (%d): check the reranker API key: %s", c.url, status, quoted)
	case http.StatusNotFound:
		return fmt.Errorf("rerank endpoint %s not found (404): check BaseURL (the API root; /rerank is appended) and model %q: %s",
			c.url, c.model, quoted)
	}
	return fmt.Errorf("rerank endpoint %s answered %d: %s", c.url, status, quoted)
}
