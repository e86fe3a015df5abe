package rag

import (
	"context"
	"errors"
	"time"
)

// ErrToolsUnsupported is wrapped by a ChatModel when the endpoint refuses a request because it
// offers tools (a model or server without tool calling). The agent then answers single-shot.
var ErrToolsUnsupported = errors.New("the chat endpoint does not accept tools")

// ErrAgentFallback is wrapped by an Agent that could not run (the model refused tools, or
// answered without calling any): the pipeline then answers with one search, as without an agent.
var ErrAgentFallback = errors.New("agent fell back to a single search")

// AgentFallbackError is an agent's ErrAgentFallback with its reason: "tools_unsupported" (the
// endpoint refused tools) or "no_tool_calls" (the model answered without searching).
type AgentFallbackError struct {
	Reason string
	Err    error // the endpoint's refusal, when there is one
}

func (e *AgentFallbackError) Error() string {
	if e.Err != nil {
		return "agent fell back to a single search (" + e.Reason + "): " + e.Err.Error()
	}
	return "agent fell back to a single search (" + e.Reason + ")"
}

// Unwrap makes errors.Is match ErrAgentFallback and the endpoint's error.
func (e *AgentFallbackError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrAgentFallback}
	}
	return []error{ErrAgentFallback, e.Err}
}

// ErrDocumentNotFound is returned by DocumentReader when a document does not exist or the scope
// may read none of it: the two are indistinguishable on purpose.
var ErrDocumentNotFound = errors.New("document not found")

// ToolSpec is a function a chat model may call: its name, what it does and a JSON Schema of
// its arguments.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ToolCall is one call a model asked for: its id (echoed in the tool's result message), the
// function's name and its arguments as a JSON object.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// DocumentReader reads one document's sections under a scope.
type DocumentReader interface {
	// DocumentSections returns the chunks of document id that scope may read, in document
	// order, as hits (Score and ranks zero). It returns ErrNoScope for an empty scope and
	// ErrDocumentNotFound when the document does not exist or scope may read none of it.
	DocumentSections(ctx context.Context, id int64, scope Scope) ([]Hit, error)
}

// Agent answers a question by letting a model search and read documents, several times, under
// the asker's scope. rag/generate.Agent implements it.
type Agent interface {
	// Run answers req. It returns an error wrapping ErrAgentFallback when the model cannot use
	// tools, ErrNoScope for an empty scope, and the model's or the store's error otherwise.
	Run(ctx context.Context, req AgentRequest) (*AgentResult, error)
}

// AgentRequest is one question for an Agent.
type AgentRequest struct {
	Question string // the standalone query
	Lang     string
	Scope    Scope
}

// AgentResult is an agent's draft answer: its text cites Sources as [n]; the pipeline verifies
// the citations.
type AgentResult struct {
	Text string
	// Sources are every passage the tools showed the model, numbered as it saw them.
	Sources []Source
	Steps   []AgentStep
	Usage   Usage
}

// AgentStep is one tool call of an agent answer, for the trace: what the model asked for and
// what it got back (no document text).
type AgentStep struct {
	N          int           `json:"n"`
	Tool       string        `json:"tool"` // "search" or "get_document"
	Query      string        `json:"query,omitempty"`
	DocumentID int64         `json:"document_id,omitempty"`
	Results    int           `json:"results"` // passages returned
	ChunkIDs   []int64       `json:"chunk_ids,omitempty"`
	Error      string        `json:"error,omitempty"` // a refusal the model was told about
	Took       time.Duration `json:"took_ns"`
}
