package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/rag"
)

// Chat is a rag.ChatModel over an OpenAI-compatible /chat/completions endpoint. It is safe for
// concurrent use.
type Chat struct {
	client   *goopenai.Client
	retry    *retrier
	endpoint endpoint
	model    string
	timeout  time.Duration
	logger   *slog.Logger
}

var _ rag.ChatModel = (*Chat)(nil)

// NewChat returns a Chat for cfg, or an error naming each Config field to fix (ChatModel is
// required).
func NewChat(cfg Config) (*Chat, error) {
	cfg = cfg.withDefaults()
	err := cfg.validate()
	if cfg.ChatModel == "" {
		err = errors.Join(err, errors.New("ChatModel is required: e.g. gpt-4o-mini or llama3.1:8b"))
	}
	if err != nil {
		return nil, fmt.Errorf("openai chat config: %w", err)
	}
	return &Chat{
		client:   newClient(cfg),
		retry:    newRetrier(cfg),
		endpoint: endpoint{kind: "chat", baseURL: cfg.BaseURL, model: cfg.ChatModel, apiType: cfg.APIType},
		model:    cfg.ChatModel,
		timeout:  cfg.Timeout,
		logger:   cfg.Logger,
	}, nil
}

// Chat sends req to the configured model. With onDelta nil it waits for the whole completion;
// otherwise it streams and calls onDelta with each piece of text in order. The initial request is
// retried like embeddings; a stream that breaks or stalls for Timeout is not retried (deltas were
// already delivered) and returns an error. Token counts come from the server, or are estimated
// (about 4 characters per token) when it sends none.
func (c *Chat) Chat(ctx context.Context, req rag.ChatRequest, onDelta func(delta string)) (*rag.ChatResponse, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("chat: request has no messages")
	}
	creq := c.request(req)
	var (
		resp *rag.ChatResponse
		err  error
	)
	if onDelta == nil || len(req.Tools) > 0 {
		resp, err = c.complete(ctx, creq)
	} else {
		resp, err = c.stream(ctx, creq, onDelta)
	}
	if err != nil {
		return nil, err
	}
	estimated := false
	if resp.PromptTokens == 0 && resp.CompletionTokens == 0 {
		resp.PromptTokens, resp.CompletionTokens = estimatePromptTokens(req.Messages), estimateTokens(resp.Text)
		estimated = true
	}
	c.logger.DebugContext(ctx, "chat completed", slog.String("model", resp.Model),
		slog.Bool("streamed", onDelta != nil), slog.Int("prompt_tokens", resp.PromptTokens),
		slog.Int("completion_tokens", resp.CompletionTokens), slog.Bool("tokens_estimated", estimated))
	return resp, nil
}

// request converts a rag request. A zero Temperature is sent as the smallest positive value,
// because go-openai omits 0 and servers then use their default (1.0); reasoning models get
// max_completion_tokens and no temperature, as go-openai's validator requires.
func (c *Chat) request(req rag.ChatRequest) goopenai.ChatCompletionRequest {
	creq := goopenai.ChatCompletionRequest{
		Model:       c.model,
		Messages:    make([]goopenai.ChatCompletionMessage, len(req.Messages)),
		MaxTokens:   req.MaxTokens,
		Temperature: req.Temperature,
	}
	for i, m := range req.Messages {
		creq.Messages[i] = goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
			ToolCalls: wireToolCalls(m.ToolCalls)}
	}
	creq.Tools = wireTools(req.Tools)
	if creq.Temperature == 0 {
		creq.Temperature = math.SmallestNonzeroFloat32
	}
	if js := req.JSONSchema; js != nil {
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
			Type:       goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: js.Name, Schema: js.Schema, Strict: true},
		}
	}
	validator := goopenai.NewReasoningValidator()
	if errors.Is(validator.Validate(creq), goopenai.ErrReasoningModelMaxTokensDeprecated) {
		creq.MaxCompletionTokens, creq.MaxTokens = creq.MaxTokens, 0
	}
	if err := validator.Validate(creq); errors.Is(err, goopenai.ErrReasoningModelLimitationsOther) ||
		errors.Is(err, goopenai.ErrReasoningSamplingUnsupported) {
		creq.Temperature = 0
	}
	return creq
}

// complete runs a non-streamed completion with retries.
func (c *Chat) complete(ctx context.Context, creq goopenai.ChatCompletionRequest) (*rag.ChatResponse, error) {
	var out goopenai.ChatCompletionResponse
	res := c.retry.do(ctx, "chat", c.timeout, func(ctx context.Context) error {
		var err error
		out, err = c.client.CreateChatCompletion(ctx, creq)
		return err
	})
	if res != nil {
		err := c.endpoint.describe(res, c.timeout)
		if len(creq.Tools) > 0 && rejectsTools(res) {
			return nil, fmt.Errorf("%w: %w", rag.ErrToolsUnsupported, err)
		}
		return nil, err
	}
	if len(out.Choices) == 0 {
		return nil, fmt.Errorf("chat endpoint returned no choices for model %q", c.model)
	}
	return &rag.ChatResponse{
		Text:             out.Choices[0].Message.Content,
		Model:            firstNonEmpty(out.Model, c.model),
		PromptTokens:     out.Usage.PromptTokens,
		CompletionTokens: out.Usage.CompletionTokens,
		ToolCalls:        ragToolCalls(out.Choices[0].Message.ToolCalls),
	}, nil
}

// rejectsStreamOptions reports whether a failure is a server refusing stream_options (older Azure
// API versions and some compatible servers), which is worth one more try without it.
func rejectsStreamOptions(res *attemptResult) bool {
	return res.status == http.StatusBadRequest && strings.Contains(res.err.Error(), "stream_options")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// estimateTokens approximates a token count as one token per 4 characters, rounded up.
func estimateTokens(s string) int {
	n := len([]rune(s))
	return (n + 3) / 4
}

// estimatePromptTokens adds the per-message overhead of the chat format (about 4 tokens).
func estimatePromptTokens(messages []rag.ChatMessage) int {
	n := 0
	for _, m := range messages {
		n += estimateTokens(m.Content) + 4
	}
	return n
}
