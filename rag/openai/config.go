// Package openai implements rag.Embedder and rag.ChatModel over the OpenAI HTTP API and the
// servers that copy it (Azure OpenAI, Ollama, vLLM, LiteLLM, ...), using
// github.com/sashabaranov/go-openai. Requests are batched, retried on 429/5xx/timeouts with
// exponential backoff that honours Retry-After, and failures are reported in words that say what
// to change.
package openai

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// Defaults applied by NewEmbedder and NewChat to zero Config fields.
const (
	DefaultBaseURL    = "https://api.openai.com/v1"
	DefaultBatchSize  = 96
	DefaultMaxRetries = 5
	DefaultTimeout    = 60 * time.Second
)

// Config configures an Embedder or a Chat. One Config can serve both.
type Config struct {
	// BaseURL is the API root. For OpenAI-compatible servers it must include the version path:
	// "http://localhost:11434/v1" (Ollama), "http://vllm:8000/v1". Empty means api.openai.com.
	// For Azure it is the resource endpoint, "https://<resource>.openai.azure.com".
	BaseURL string
	// APIKey is sent as a bearer token (as the api-key header for Azure). Local servers may need none.
	APIKey string
	// APIType is "openai" (default) or "azure".
	APIType string
	// APIVersion is Azure's api-version query parameter; empty means go-openai's default.
	// Azure deployments are named after the model (go-openai's DefaultAzureConfig mapping).
	APIVersion string

	// EmbeddingModel names the embedding model, e.g. "text-embedding-3-small" or "nomic-embed-text".
	EmbeddingModel string
	// Dimensions is the vector length the index stores. It is requested from models that accept a
	// dimensions parameter (text-embedding-3-*) and checked against every returned vector.
	Dimensions int
	// ChatModel names the chat model, e.g. "gpt-4o-mini" or "llama3.1:8b".
	ChatModel string

	// BatchSize is the number of texts per embeddings request; 0 means 96.
	BatchSize int
	// MaxRetries is the number of retries after a failed attempt; 0 means 5, negative means none.
	MaxRetries int
	// Timeout bounds each attempt; for streamed chat it bounds the wait for each chunk. 0 means 60s.
	Timeout time.Duration
	// HTTPClient is used for requests when set; its Transport is wrapped, not replaced.
	HTTPClient *http.Client
	// Logger receives retry warnings and request debug lines; nil means slog.Default().
	Logger *slog.Logger
}

// withDefaults returns cfg with zero fields filled in.
func (cfg Config) withDefaults() Config {
	cfg.APIType = strings.ToLower(strings.TrimSpace(cfg.APIType))
	if cfg.APIType == "" {
		cfg.APIType = "openai"
	}
	if cfg.BaseURL == "" && cfg.APIType == "openai" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

// validate checks the fields both clients need; errors name the field and the fix.
func (cfg Config) validate() error {
	var errs []error
	switch cfg.APIType {
	case "openai", "azure":
	default:
		errs = append(errs, fmt.Errorf("APIType %q is not supported: use \"openai\" or \"azure\"", cfg.APIType))
	}
	if err := validateBaseURL(cfg.BaseURL, cfg.APIType); err != nil {
		errs = append(errs, err)
	}
	if cfg.APIKey == "" && (cfg.APIType == "azure" || strings.HasPrefix(cfg.BaseURL, DefaultBaseURL)) {
		errs = append(errs, fmt.Errorf("APIKey is required for %s: set OPENAI_API_KEY", cfg.BaseURL))
	}
	if cfg.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("BatchSize %d is negative: use 0 for the default (%d)", cfg.BatchSize, DefaultBatchSize))
	}
	if cfg.Timeout < 0 {
		errs = append(errs, fmt.Errorf("Timeout %s is negative: use 0 for the default (%s)", cfg.Timeout, DefaultTimeout))
	}
	return errors.Join(errs...)
}

// validateBaseURL rejects the two common mistakes: a bare host for an OpenAI-compatible server
// (Ollama and vLLM answer 404 without /v1) and a full endpoint URL pasted as the base.
func validateBaseURL(raw, apiType string) error {
	if raw == "" {
		return errors.New("BaseURL is required for APIType \"azure\": use https://<resource>.openai.azure.com")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("BaseURL %q is not an http(s) URL: use e.g. http://localhost:11434/v1", raw)
	}
	path := strings.TrimRight(u.Path, "/")
	for _, suffix := range []string{"/embeddings", "/chat/completions"} {
		if strings.HasSuffix(path, suffix) {
			return fmt.Errorf("BaseURL %q names an endpoint: drop %q so it ends at the API root (…/v1)", raw, suffix)
		}
	}
	if apiType == "openai" && path == "" {
		return fmt.Errorf("BaseURL %q has no path: OpenAI-compatible servers (Ollama, vLLM) serve under /v1, "+
			"use %s/v1", raw, strings.TrimRight(raw, "/"))
	}
	return nil
}

// newClient builds the go-openai client for cfg, with a transport that records each response's
// status and Retry-After header for the retry loop.
func newClient(cfg Config) *goopenai.Client {
	var cc goopenai.ClientConfig
	if cfg.APIType == "azure" {
		cc = goopenai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		if cfg.APIVersion != "" {
			cc.APIVersion = cfg.APIVersion
		}
	} else {
		cc = goopenai.DefaultConfig(cfg.APIKey)
		cc.BaseURL = cfg.BaseURL
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	}
	hc.Transport = &captureTransport{base: hc.Transport}
	cc.HTTPClient = hc
	return goopenai.NewClientWithConfig(cc)
}
