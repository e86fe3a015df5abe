// Package generate writes cited answers with a chat model: LLMComposer implements rag.Composer
// over any rag.ChatModel (rag/openai.Chat for OpenAI, Azure OpenAI, Ollama, vLLM).
package generate

import (
	"context"
	"fmt"
	"strings"

	"github.com/citahq/cita/rag"
)

// DefaultMaxTokens bounds an answer's length when LLMComposer.MaxTokens is zero.
const DefaultMaxTokens = 700

// LLMComposer composes answers with a chat model from numbered sources. The prompt (see
// Messages) requires a citation for every claim, allows only the abstention sentence when the
// sources do not answer, and treats document text as delimited data. Citations are verified by
// the pipeline (rag.VerifyCitations), not here.
type LLMComposer struct {
	model       rag.ChatModel
	MaxTokens   int     // completion budget; 0 means DefaultMaxTokens
	Temperature float32 // 0 (the default) for answers that follow the sources closely
}

var (
	_ rag.Composer           = (*LLMComposer)(nil)
	_ rag.AnswerabilityJudge = (*LLMComposer)(nil)
)

// JudgesAnswerability implements rag.AnswerabilityJudge: the prompt makes the model reply with
// the abstention sentence when the sources do not state the answer, so the pipeline's lexical
// guard only skips the hopeless cases before it.
func (c *LLMComposer) JudgesAnswerability() bool { return true }

// NewLLMComposer returns a composer over model.
func NewLLMComposer(model rag.ChatModel) *LLMComposer {
	return &LLMComposer{model: model}
}

// Compose implements rag.Composer. With onDelta non-nil the model streams and onDelta receives
// the raw text as it arrives (before citation verification). It returns an empty text without
// calling the model when there are no sources, and the model's error, wrapped, when the call
// fails.
func (c *LLMComposer) Compose(ctx context.Context, req rag.ComposeRequest, onDelta func(string)) (*rag.Composition, error) {
	if len(req.Sources) == 0 {
		return &rag.Composition{}, nil
	}
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	resp, err := c.model.Chat(ctx, rag.ChatRequest{
		Messages:    Messages(req),
		MaxTokens:   maxTokens,
		Temperature: c.Temperature,
	}, onDelta)
	if err != nil {
		return nil, fmt.Errorf("generate answer: %w", err)
	}
	return &rag.Composition{
		Text: strings.TrimSpace(resp.Text),
		Usage: rag.Usage{
			Model:            resp.Model,
			PromptTokens:     resp.PromptTokens,
			CompletionTokens: resp.CompletionTokens,
		},
	}, nil
}
