package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/citahq/cita/rag"
)

// ErrDimensionMismatch is wrapped by Embed when a returned vector's length differs from
// Config.Dimensions.
var ErrDimensionMismatch = errors.New("embedding dimension mismatch")

// endpoint names what a request was for, to build messages that say what to change.
type endpoint struct {
	kind    string // "embedding" or "chat"
	baseURL string
	model   string
	apiType string
}

// describe turns the retry loop's last failure into one error that says what happened and what to
// change. The underlying error stays reachable with errors.Is/As (*goopenai.APIError,
// *goopenai.RequestError, context.Canceled).
func (e endpoint) describe(res *attemptResult, timeout time.Duration) error {
	err := e.explain(res, timeout)
	if res.status == 0 {
		return err
	}
	// The status of the last response stays readable to the pipeline (rag.ModelError), which
	// says what happened when it answers without the model.
	return &rag.ModelError{Status: res.status, Err: err}
}

func (e endpoint) explain(res *attemptResult, timeout time.Duration) error {
	err := res.err
	if errors.Is(err, context.Canceled) || (errors.Is(err, context.DeadlineExceeded) && !res.timedOut) {
		return fmt.Errorf("%s request to %s stopped after %d attempt(s): %w", e.kind, e.baseURL, res.attempts, err)
	}
	keyHint := "check OPENAI_API_KEY"
	if e.apiType == "azure" {
		keyHint = "check the Azure OpenAI api key for this resource"
	}
	switch status := res.status; {
	case res.timedOut:
		return fmt.Errorf("%s request to %s timed out after %s on each of %d attempt(s): raise Timeout or check the server: %w",
			e.kind, e.baseURL, timeout, res.attempts, err)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("%s endpoint rejected the API key (401): %s: %w", e.kind, keyHint, err)
	case status == http.StatusForbidden:
		return fmt.Errorf("%s endpoint refused access to model %q (403): check the key's permissions: %w", e.kind, e.model, err)
	case status == http.StatusNotFound:
		return fmt.Errorf("%s endpoint or model not found (404) at %s: check that BaseURL ends at the API root "+
			"(…/v1 for Ollama and vLLM) and that model %q exists (for Azure, a deployment of that name): %w",
			e.kind, e.baseURL, e.model, err)
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return fmt.Errorf("%s endpoint rejected the request (%d) for model %q: %w", e.kind, status, e.model, err)
	case res.retryAfterTooLong:
		return fmt.Errorf("%s endpoint is overloaded (%d) and asked to wait %q, longer than the %s we wait: %w",
			e.kind, status, res.retryAfter, maxRetryAfter, err)
	case status == http.StatusTooManyRequests:
		return fmt.Errorf("%s endpoint still rate-limited (429) after %d attempt(s): lower BatchSize or raise the quota: %w",
			e.kind, res.attempts, err)
	case status >= 500:
		return fmt.Errorf("%s endpoint kept failing (%d) after %d attempt(s): %w", e.kind, status, res.attempts, err)
	case status != 0:
		return fmt.Errorf("%s endpoint answered %d: %w", e.kind, status, err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("cannot reach the %s endpoint at %s: check BaseURL and that the server is running: %w",
			e.kind, e.baseURL, err)
	}
	return fmt.Errorf("%s request to %s after %d attempt(s): %w", e.kind, e.baseURL, res.attempts, err)
}
