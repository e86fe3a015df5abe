package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// wireRequest is the union of the JSON bodies the server accepts.
type wireRequest struct {
	Model string `json:"model"`

	Input      json.RawMessage `json:"input"`
	Dimensions int             `json:"dimensions"`

	Messages            []Message `json:"messages"`
	Stream              bool      `json:"stream"`
	MaxTokens           int       `json:"max_tokens"`
	MaxCompletionTokens int       `json:"max_completion_tokens"`
	Temperature         float32   `json:"temperature"`
	Tools               []Tool    `json:"tools"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`

	Query     string            `json:"query"`
	Documents []json.RawMessage `json:"documents"`
	Texts     []string          `json:"texts"`
	TopN      int               `json:"top_n"`
}

// decodeRequest reads and decodes r. It always returns a Request fit for recording; the error is
// the 4xx answer a real server would give to a malformed body.
func decodeRequest(r *http.Request) (Request, *HTTPError) {
	req := Request{
		Endpoint: endpointOf(r.URL.Path),
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return req, &HTTPError{Status: http.StatusBadRequest, Message: "read body: " + err.Error()}
	}
	req.Body = body
	if req.Endpoint == "" {
		return req, nil // answered 404 by the router
	}
	if r.Method != http.MethodPost {
		return req, &HTTPError{Status: http.StatusMethodNotAllowed, Message: "use POST"}
	}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return req, &HTTPError{Status: http.StatusBadRequest, Message: "invalid JSON body: " + err.Error()}
	}
	req.Model = w.Model
	switch req.Endpoint {
	case "embeddings":
		req.Dimensions = w.Dimensions
		req.Input, err = decodeInput(w.Input)
		if err != nil {
			return req, &HTTPError{Status: http.StatusBadRequest, Message: err.Error()}
		}
	case "chat":
		req.Messages = w.Messages
		req.Stream = w.Stream
		req.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
		req.MaxTokens = max(w.MaxTokens, w.MaxCompletionTokens)
		req.Temperature = w.Temperature
		req.Tools = w.Tools
		for i, t := range w.Tools {
			if t.Type != "function" || t.Function.Name == "" {
				return req, &HTTPError{Status: http.StatusBadRequest, Message: fmt.Sprintf("tools[%d]: expected a function with a name", i)}
			}
		}
		if len(w.Messages) == 0 {
			return req, &HTTPError{Status: http.StatusBadRequest, Message: "messages must not be empty"}
		}
		if rf := w.ResponseFormat; rf != nil {
			req.ResponseFormat = rf.Type
			if rf.Type == "json_schema" {
				// OpenAI answers 400 to a json_schema format without a name or an object schema.
				if rf.JSONSchema == nil || rf.JSONSchema.Name == "" || !json.Valid(rf.JSONSchema.Schema) || rf.JSONSchema.Schema[0] != '{' {
					return req, &HTTPError{Status: http.StatusBadRequest, Message: "response_format.json_schema needs a name and an object schema"}
				}
				req.SchemaName, req.Schema = rf.JSONSchema.Name, rf.JSONSchema.Schema
			}
		}
	case "rerank":
		req.Query = w.Query
		req.TopN = w.TopN
		req.Flavor = "cohere"
		if w.Texts != nil {
			req.Flavor = "tei"
			req.Documents = w.Texts
			break
		}
		req.Documents, err = decodeDocuments(w.Documents)
		if err != nil {
			return req, &HTTPError{Status: http.StatusBadRequest, Message: err.Error()}
		}
	}
	return req, nil
}

// decodeInput accepts the embeddings "input" as one string or an array of strings.
func decodeInput(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("'input' must be a string or an array of strings")
	}
	if len(many) == 0 {
		return nil, fmt.Errorf("'input' must not be empty")
	}
	for i, s := range many {
		if s == "" {
			return nil, fmt.Errorf("'$.input[%d]' is invalid: empty string", i)
		}
	}
	return many, nil
}

// decodeDocuments accepts Cohere/Jina documents as strings or {"text": ...} objects.
func decodeDocuments(raw []json.RawMessage) ([]string, error) {
	out := make([]string, 0, len(raw))
	for i, d := range raw {
		var s string
		if err := json.Unmarshal(d, &s); err == nil {
			out = append(out, s)
			continue
		}
		var obj struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(d, &obj); err != nil {
			return nil, fmt.Errorf("documents[%d] must be a string or {\"text\": ...}", i)
		}
		out = append(out, obj.Text)
	}
	return out, nil
}
