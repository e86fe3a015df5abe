package rag

import (
	"context"
	"encoding/json"
)

// ChatMessage is one message of a chat completion request.
type ChatMessage struct {
	Role    string // "system", "user", "assistant" or "tool"
	Content string
	// ToolCalls are the calls an assistant message asked for (agent mode).
	ToolCalls []ToolCall
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string
}

// ChatRequest is a chat completion request; Model empty means the client's configured model.
type ChatRequest struct {
	Messages    []ChatMessage
	MaxTokens   int
	Temperature float32
	// Tools the model may call; none means a plain completion. A request with tools is never
	// streamed.
	Tools []ToolSpec
	// JSONSchema, when set, asks for a reply that is one JSON object matching it (structured
	// output). A server may ignore it and reply with text: callers parse the reply defensively.
	JSONSchema *JSONSchema
}

// JSONSchema names a JSON Schema for structured output.
type JSONSchema struct {
	Name   string // letters, digits, _ and -
	Schema json.RawMessage
}

// ChatResponse is a finished completion with its token accounting.
type ChatResponse struct {
	Text             string
	Model            string
	PromptTokens     int
	CompletionTokens int
	// ToolCalls are the calls the model asked for instead of (or with) text.
	ToolCalls []ToolCall
}

// ChatModel generates text. When onDelta is non-nil the implementation streams and calls it with
// each piece of text as it arrives; the returned response still holds the whole text.
type ChatModel interface {
	Chat(ctx context.Context, req ChatRequest, onDelta func(delta string)) (*ChatResponse, error)
}

// Reranker scores documents against a query (higher is more relevant); the result has one score
// per document, in order.
type Reranker interface {
	Rerank(ctx context.Context, query string, documents []string) ([]float64, error)
}
