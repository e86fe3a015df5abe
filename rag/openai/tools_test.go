package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

var searchTool = rag.ToolSpec{
	Name:        "search",
	Description: "Search the documents.",
	Parameters: map[string]any{"type": "object", "required": []string{"query"},
		"properties": map[string]any{"query": map[string]any{"type": "string"}}},
}

// TestChatToolCallRoundTrip drives a two-turn tool exchange through go-openai: the tools reach
// the server, the tool call comes back, and the next request carries the assistant's call and
// the tool's answer in the wire shape servers expect.
func TestChatToolCallRoundTrip(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return fakeopenai.Reply{Content: "Receipts are needed above 30 euros [1]."}, nil
		}
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_a", Function: fakeopenai.FunctionCall{
			Name: "search", Arguments: `{"query":"receipt threshold"}`}}}}, nil
	}))
	for _, streamed := range []bool{false, true} {
		c, _ := newTestChat(t, srv, nil)
		req := rag.ChatRequest{Messages: []rag.ChatMessage{{Role: "user", Content: "Do I need a receipt for a taxi?"}},
			Tools: []rag.ToolSpec{searchTool}}
		var onDelta func(string)
		if streamed {
			onDelta = func(string) { t.Error("a request with tools must not stream") }
		}
		resp, err := c.Chat(context.Background(), req, onDelta)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (rag.ToolCall{ID: "call_a", Name: "search", Arguments: `{"query":"receipt threshold"}`}) {
			t.Fatalf("tool calls = %+v", resp.ToolCalls)
		}
		req.Messages = append(req.Messages,
			rag.ChatMessage{Role: "assistant", ToolCalls: resp.ToolCalls},
			rag.ChatMessage{Role: "tool", ToolCallID: "call_a", Content: "[1] Travel policy: receipts above 30 euros."})
		resp, err = c.Chat(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "Receipts are needed above 30 euros [1]." || len(resp.ToolCalls) != 0 {
			t.Fatalf("final turn = %+v", resp)
		}
	}
	reqs := srv.Requests()
	first, second := reqs[0], reqs[1]
	if len(first.Tools) != 1 || first.Tools[0].Function.Name != "search" || first.Stream {
		t.Fatalf("first request tools = %+v, stream %v", first.Tools, first.Stream)
	}
	var params map[string]any
	if err := json.Unmarshal(first.Tools[0].Function.Parameters, &params); err != nil || params["type"] != "object" {
		t.Fatalf("parameters = %s (%v)", first.Tools[0].Function.Parameters, err)
	}
	asst, tool := second.Messages[1], second.Messages[2]
	if asst.Role != "assistant" || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "call_a" || asst.ToolCalls[0].Type != "function" ||
		asst.ToolCalls[0].Function.Arguments != `{"query":"receipt threshold"}` {
		t.Fatalf("assistant turn sent as %+v", asst)
	}
	if tool.Role != "tool" || tool.ToolCallID != "call_a" || tool.Content == "" {
		t.Fatalf("tool turn sent as %+v", tool)
	}
}

func TestChatToolsRefusedIsErrToolsUnsupported(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithReplyFunc(func(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
		if len(req.Tools) > 0 {
			return fakeopenai.Reply{}, &fakeopenai.HTTPError{Status: http.StatusBadRequest, Message: "llama2 does not support tools"}
		}
		return fakeopenai.Reply{Content: "plain"}, nil
	}))
	c, _ := newTestChat(t, srv, nil)
	_, err := c.Chat(context.Background(), rag.ChatRequest{Messages: []rag.ChatMessage{{Role: "user", Content: "q"}},
		Tools: []rag.ToolSpec{searchTool}}, nil)
	if !errors.Is(err, rag.ErrToolsUnsupported) {
		t.Fatalf("error %v, want ErrToolsUnsupported", err)
	}
	// The same status without tools is an ordinary rejection.
	srv2 := fakeopenai.New(t, fakeopenai.WithChatFunc(func(fakeopenai.Request) (string, *fakeopenai.HTTPError) {
		return "", &fakeopenai.HTTPError{Status: http.StatusBadRequest, Message: "context too long"}
	}))
	c2, _ := newTestChat(t, srv2, nil)
	_, err = c2.Chat(context.Background(), rag.ChatRequest{Messages: []rag.ChatMessage{{Role: "user", Content: "q"}}}, nil)
	if err == nil || errors.Is(err, rag.ErrToolsUnsupported) {
		t.Fatalf("error %v, want a rejection that is not ErrToolsUnsupported", err)
	}
}
