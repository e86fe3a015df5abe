package openai

import (
	"net/http"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/citahq/cita/rag"
)

// wireTools converts tool specs to the function tools of the chat completions API.
func wireTools(specs []rag.ToolSpec) []goopenai.Tool {
	if len(specs) == 0 {
		return nil
	}
	out := make([]goopenai.Tool, len(specs))
	for i, s := range specs {
		out[i] = goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: s.Name, Description: s.Description, Parameters: s.Parameters,
		}}
	}
	return out
}

// wireToolCalls converts an assistant message's calls back to the wire, for the next request.
func wireToolCalls(calls []rag.ToolCall) []goopenai.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]goopenai.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = goopenai.ToolCall{ID: c.ID, Type: goopenai.ToolTypeFunction,
			Function: goopenai.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
	}
	return out
}

// ragToolCalls keeps the function calls of a response (other tool types are ignored).
func ragToolCalls(calls []goopenai.ToolCall) []rag.ToolCall {
	var out []rag.ToolCall
	for _, c := range calls {
		if c.Type != "" && c.Type != goopenai.ToolTypeFunction {
			continue
		}
		out = append(out, rag.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
}

// rejectsTools reports whether a failure of a request with tools is the server refusing them:
// servers and models without tool calling answer 400 or 422 (vLLM without
// --enable-auto-tool-choice, Ollama models without the tools capability).
func rejectsTools(res *attemptResult) bool {
	return res.status == http.StatusBadRequest || res.status == http.StatusUnprocessableEntity
}
