package generate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/citahq/cita/rag"
)

// DefaultMaxSteps bounds an agent answer's tool calls when AgentOptions.MaxSteps is zero.
const DefaultMaxSteps = 4

// AgentOptions tunes an Agent.
type AgentOptions struct {
	MaxSteps  int // tool calls per answer; 0 means DefaultMaxSteps
	MaxTokens int // completion budget per model call; 0 means DefaultMaxTokens
	Logger    *slog.Logger
}

// Agent implements rag.Agent: a chat model with tool calling searches and reads documents, up to
// MaxSteps tool calls, always under the asker's scope, then answers citing the numbered
// passages the tools showed it. Citations are verified by the pipeline.
type Agent struct {
	model    rag.ChatModel
	searcher rag.Searcher
	docs     rag.DocumentReader
	opts     AgentOptions
	logger   *slog.Logger
}

var _ rag.Agent = (*Agent)(nil)

// NewAgent returns an agent over model that searches with searcher and reads with docs.
func NewAgent(model rag.ChatModel, searcher rag.Searcher, docs rag.DocumentReader, opts AgentOptions) *Agent {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Agent{model: model, searcher: searcher, docs: docs, opts: opts, logger: logger}
}

// Run implements rag.Agent. It returns ErrNoScope for an empty scope before any call, a
// *rag.AgentFallbackError when the endpoint refuses tools or the model's first turn calls none,
// and the model's or the store's error otherwise.
func (a *Agent) Run(ctx context.Context, req rag.AgentRequest) (*rag.AgentResult, error) {
	if req.Scope.Empty() {
		return nil, rag.ErrNoScope
	}
	run := &agentRun{agent: a, scope: req.Scope, numbers: map[int64]int{}}
	msgs := agentMessages(req.Question, req.Lang, a.opts.MaxSteps)
	res := &rag.AgentResult{}
	// One model call per turn; the last turn offers no tools, so the model must answer.
	for turn := 0; ; turn++ {
		offer := len(run.steps) < a.opts.MaxSteps
		creq := rag.ChatRequest{Messages: msgs, MaxTokens: a.opts.MaxTokens}
		if offer {
			creq.Tools = agentTools
		}
		resp, err := a.model.Chat(ctx, creq, nil)
		if err != nil {
			if turn == 0 && errors.Is(err, rag.ErrToolsUnsupported) {
				return nil, &rag.AgentFallbackError{Reason: "tools_unsupported", Err: err}
			}
			return nil, fmt.Errorf("agent turn %d: %w", turn+1, err)
		}
		res.Usage.Model = resp.Model
		res.Usage.PromptTokens += resp.PromptTokens
		res.Usage.CompletionTokens += resp.CompletionTokens
		if len(resp.ToolCalls) == 0 || !offer {
			if turn == 0 {
				return nil, &rag.AgentFallbackError{Reason: "no_tool_calls"}
			}
			res.Text = strings.TrimSpace(resp.Text)
			break
		}
		msgs = append(msgs, rag.ChatMessage{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls})
		for _, call := range resp.ToolCalls {
			out, err := run.call(ctx, call, len(run.steps) < a.opts.MaxSteps)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, rag.ChatMessage{Role: "tool", ToolCallID: call.ID, Content: out})
		}
	}
	res.Sources, res.Steps = run.sources, run.steps
	a.logger.DebugContext(ctx, "agent answered", slog.Int("steps", len(res.Steps)), slog.Int("passages", len(res.Sources)),
		slog.Int("prompt_tokens", res.Usage.PromptTokens))
	return res, nil
}
