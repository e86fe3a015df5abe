package fakeopenai

import (
	"context"
	"errors"
	"io"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// TestToolCallsThroughGoOpenAI checks the tool-call wire format with the real client, plain and
// streamed: the call's id, name and arguments arrive whole (streamed arguments reassembled from
// their deltas by index), with finish_reason tool_calls.
func TestToolCallsThroughGoOpenAI(t *testing.T) {
	t.Parallel()
	const args = `{"query": "taxi receipts", "k": 3}`
	srv := New(t, WithReplyFunc(func(req Request) (Reply, *HTTPError) {
		if len(req.Tools) != 1 || req.Tools[0].Function.Name != "search" {
			return Reply{}, &HTTPError{Status: 400, Message: "expected the search tool"}
		}
		return Reply{ToolCalls: []ToolCall{{ID: "call_1", Function: FunctionCall{Name: "search", Arguments: args}}}}, nil
	}))
	cfg := goopenai.DefaultConfig("k")
	cfg.BaseURL = srv.URL
	client := goopenai.NewClientWithConfig(cfg)
	req := goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "q"}},
		Tools: []goopenai.Tool{{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: "search",
			Parameters: map[string]any{"type": "object"}}}}}
	resp, err := client.CreateChatCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if resp.Choices[0].FinishReason != goopenai.FinishReasonToolCalls || len(msg.ToolCalls) != 1 ||
		msg.ToolCalls[0].ID != "call_1" || msg.ToolCalls[0].Function.Name != "search" || msg.ToolCalls[0].Function.Arguments != args {
		t.Fatalf("plain response = %+v", resp.Choices[0])
	}

	stream, err := client.CreateChatCompletionStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var id, name, gotArgs string
	var finish goopenai.FinishReason
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunk.Choices {
			for _, tc := range c.Delta.ToolCalls {
				if tc.Index == nil || *tc.Index != 0 {
					t.Fatalf("tool call delta without index 0: %+v", tc)
				}
				id += tc.ID
				name += tc.Function.Name
				gotArgs += tc.Function.Arguments
			}
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
	}
	if id != "call_1" || name != "search" || gotArgs != args || finish != goopenai.FinishReasonToolCalls {
		t.Fatalf("streamed call id %q name %q args %q finish %q", id, name, gotArgs, finish)
	}
}
