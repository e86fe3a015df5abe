package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/rag"
)

// Embedder is a rag.Embedder over an OpenAI-compatible /embeddings endpoint. It is safe for
// concurrent use.
type Embedder struct {
	client    *goopenai.Client
	retry     *retrier
	endpoint  endpoint
	model     string
	dimension int
	batchSize int
	// sendDimensions is true for models that accept the dimensions parameter.
	sendDimensions bool
	logger         *slog.Logger
}

var _ rag.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder for cfg, or an error naming each Config field to fix
// (EmbeddingModel and Dimensions are required).
func NewEmbedder(cfg Config) (*Embedder, error) {
	cfg = cfg.withDefaults()
	err := cfg.validate()
	if cfg.EmbeddingModel == "" {
		err = errors.Join(err, errors.New("EmbeddingModel is required: e.g. text-embedding-3-small or nomic-embed-text"))
	}
	if cfg.Dimensions <= 0 {
		err = errors.Join(err, errors.New("Dimensions is required: the vector length the index stores "+
			"(1536 for text-embedding-3-small, 768 for nomic-embed-text)"))
	}
	if err != nil {
		return nil, fmt.Errorf("openai embedder config: %w", err)
	}
	return &Embedder{
		client:         newClient(cfg),
		retry:          newRetrier(cfg),
		endpoint:       endpoint{kind: "embedding", baseURL: cfg.BaseURL, model: cfg.EmbeddingModel, apiType: cfg.APIType},
		model:          cfg.EmbeddingModel,
		dimension:      cfg.Dimensions,
		batchSize:      cfg.BatchSize,
		sendDimensions: acceptsDimensions(cfg.EmbeddingModel),
		logger:         cfg.Logger,
	}, nil
}

// acceptsDimensions reports whether the model takes a dimensions parameter. OpenAI's older models
// and most local servers reject or ignore it, so it is only sent where it is known to work.
func acceptsDimensions(model string) bool {
	return strings.HasPrefix(model, "text-embedding-3")
}

// Info returns the model name and the vector dimension this embedder produces.
func (e *Embedder) Info() rag.EmbedderInfo {
	return rag.EmbedderInfo{Model: e.model, Dimension: e.dimension}
}

// Embed returns one vector per text, in order, sending BatchSize texts per request. It returns an
// error wrapping ErrDimensionMismatch when the model's vectors do not have Config.Dimensions
// entries, and a described error (bad key, unknown model, still failing after retries, ctx ended)
// when a request fails; no partial result is returned.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batchSize {
		batch := texts[start:min(start+e.batchSize, len(texts))]
		vectors, err := e.embedBatch(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embed texts %d-%d of %d: %w", start, start+len(batch)-1, len(texts), err)
		}
		out = append(out, vectors...)
	}
	return out, nil
}

// embedBatch sends one request (with retries) and returns its vectors in input order.
func (e *Embedder) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	req := goopenai.EmbeddingRequestStrings{
		Input: make([]string, len(batch)),
		Model: goopenai.EmbeddingModel(e.model),
	}
	for i, t := range batch {
		// OpenAI rejects empty strings in input; a space embeds as "nothing" just as well.
		if strings.TrimSpace(t) == "" {
			t = " "
		}
		req.Input[i] = t
	}
	if e.sendDimensions {
		req.Dimensions = e.dimension
	}
	var resp goopenai.EmbeddingResponse
	res := e.retry.do(ctx, "embeddings", e.retry.timeout, func(ctx context.Context) error {
		var err error
		resp, err = e.client.CreateEmbeddings(ctx, req)
		return err
	})
	if res != nil {
		return nil, e.endpoint.describe(res, e.retry.timeout)
	}
	e.logger.DebugContext(ctx, "embedded batch", slog.String("model", e.model),
		slog.Int("texts", len(batch)), slog.Int("prompt_tokens", resp.Usage.PromptTokens))
	return e.inOrder(resp.Data, len(batch))
}

// inOrder places each returned embedding at its index and checks count and dimension.
func (e *Embedder) inOrder(data []goopenai.Embedding, n int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("embedding endpoint returned %d vectors for %d texts", len(data), n)
	}
	out := make([][]float32, n)
	for _, d := range data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embedding endpoint returned index %d out of range or twice (batch of %d)", d.Index, n)
		}
		if len(d.Embedding) != e.dimension {
			return nil, fmt.Errorf("%w: model %q returns %d-dimensional vectors but the index is configured for %d: "+
				"set Dimensions to %d and re-index (the vector column changes size), or choose a model that outputs %d dimensions",
				ErrDimensionMismatch, e.model, len(d.Embedding), e.dimension, len(d.Embedding), e.dimension)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
