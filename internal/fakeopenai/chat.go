package fakeopenai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// echoLastUserMessage is the default ChatFunc: it replies with the last user message.
func echoLastUserMessage(req Request) (string, *HTTPError) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content, nil
		}
	}
	return "", nil
}

// PromptTokens is the prompt token count the server reports: the words of all messages.
func PromptTokens(messages []Message) int {
	n := 0
	for _, m := range messages {
		n += len(strings.Fields(m.Content))
	}
	return n
}

// CompletionTokens is the completion token count the server reports: the words of the reply.
func CompletionTokens(reply string) int { return len(strings.Fields(reply)) }

// StreamDeltas splits a reply into the content deltas the server streams: each word with the
// whitespace before it, so the deltas concatenate back to the reply.
func StreamDeltas(reply string) []string {
	var out []string
	start := 0
	for i, r := range reply {
		if i > start && unicode.IsSpace(r) && !unicode.IsSpace(rune(reply[i-1])) {
			out = append(out, reply[start:i])
			start = i
		}
	}
	if start < len(reply) {
		out = append(out, reply[start:])
	}
	return out
}

// serveChat answers POST .../chat/completions as one JSON object or, when stream is true, as SSE
// chunks ending with data: [DONE].
func (s *Server) serveChat(ctx context.Context, w http.ResponseWriter, req Request) {
	var out Reply
	var herr *HTTPError
	if s.reply != nil {
		out, herr = s.reply(req)
	} else {
		out.Content, herr = s.chat(req)
	}
	if herr != nil {
		writeError(w, req, herr)
		return
	}
	for i := range out.ToolCalls {
		tc := &out.ToolCalls[i]
		if tc.Type == "" {
			tc.Type = "function"
		}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", len(req.Messages), i)
		}
	}
	reply := out.Content
	usage := map[string]int{
		"prompt_tokens":     PromptTokens(req.Messages),
		"completion_tokens": CompletionTokens(reply),
		"total_tokens":      PromptTokens(req.Messages) + CompletionTokens(reply),
	}
	if !req.Stream {
		// OpenAI sends "content": null beside tool calls, and finish_reason "tool_calls".
		message := map[string]any{"role": "assistant", "content": reply}
		finish := "stop"
		if len(out.ToolCalls) > 0 {
			message["tool_calls"] = out.ToolCalls
			finish = "tool_calls"
			if reply == "" {
				message["content"] = nil
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": req.Model,
			"choices": []map[string]any{{
				"index":         0,
				"message":       message,
				"finish_reason": finish,
			}},
			"usage": usage,
		})
		return
	}
	s.streamChat(ctx, w, req, out, usage)
}

func (s *Server) streamChat(ctx context.Context, w http.ResponseWriter, req Request, out Reply, usage map[string]int) {
	reply := out.Content
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // headers go out at once, as real servers send them before generating
	}
	send := func(choices []map[string]any, withUsage map[string]int) {
		if s.streamInterval > 0 {
			select {
			case <-time.After(s.streamInterval):
			case <-ctx.Done():
			}
		}
		chunk := map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000,
			"model": req.Model, "choices": choices,
		}
		if req.IncludeUsage {
			chunk["usage"] = withUsage // null on every chunk but the last, as OpenAI sends it
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	choice := func(delta map[string]any, finish any) []map[string]any {
		return []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}
	}
	send(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	for _, d := range StreamDeltas(reply) {
		send(choice(map[string]any{"content": d}, nil), nil)
	}
	// Tool calls stream as OpenAI sends them: the first delta of each call carries its index, id,
	// type and name, the next ones pieces of its arguments.
	for i, tc := range out.ToolCalls {
		send(choice(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": tc.ID, "type": tc.Type,
			"function": map[string]string{"name": tc.Function.Name, "arguments": ""}}}}, nil), nil)
		for _, part := range StreamDeltas(tc.Function.Arguments) {
			send(choice(map[string]any{"tool_calls": []map[string]any{{"index": i,
				"function": map[string]string{"arguments": part}}}}, nil), nil)
		}
	}
	finish := "stop"
	if len(out.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	send(choice(map[string]any{}, finish), nil)
	if req.IncludeUsage {
		send([]map[string]any{}, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
