// Package fakeopenai is a loopback HTTP server that speaks the OpenAI wire format (embeddings, chat
// completions with and without SSE streaming) and the /rerank shape shared by Cohere, Jina and
// Hugging Face TEI. Tests of any package point a real client at it, program its answers with Func
// options, inject faults (FailNext, Delay) and inspect what it received (Requests).
package fakeopenai

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultDimension is the length of the vectors the default EmbedFunc returns when the request
// names no dimensions and WithDimension was not given.
const DefaultDimension = 8

// HTTPError is an error answer: a status, a message for the body and an optional Retry-After
// header value ("2" or an HTTP date).
type HTTPError struct {
	Status     int
	Message    string
	RetryAfter string
}

// Request is one request the server received, decoded for inspection. Fields that do not apply
// to the endpoint are zero.
type Request struct {
	Endpoint string // "embeddings", "chat" or "rerank"
	Method   string
	Path     string // as received, e.g. /v1/embeddings or /openai/deployments/x/embeddings
	RawQuery string // e.g. api-version=2024-06-01
	Header   http.Header
	Body     []byte

	Model string

	// Embeddings.
	Input      []string
	Dimensions int

	// Chat completions.
	Messages     []Message
	Stream       bool
	IncludeUsage bool
	MaxTokens    int
	Temperature  float32
	Tools        []Tool // the functions offered, in request order
	// ResponseFormat is response_format.type ("" when absent); SchemaName and Schema are its
	// json_schema's name and schema.
	ResponseFormat string
	SchemaName     string
	Schema         json.RawMessage

	// Rerank. Flavor is "cohere" for {"query","documents"} bodies and "tei" for {"query","texts"}.
	Query     string
	Documents []string
	TopN      int
	Flavor    string
}

// Message is one chat message as received: an assistant message may carry the tool calls it
// made, a "tool" message names the call it answers.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call in OpenAI's wire shape.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function and its JSON-encoded arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is one function offered in a request's "tools".
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ChatFunc produces the assistant's reply to a chat request, or an error answer.
type ChatFunc func(req Request) (reply string, err *HTTPError)

// Reply is an assistant turn that may call tools: Content, ToolCalls or both.
type Reply struct {
	Content   string
	ToolCalls []ToolCall
}

// ReplyFunc produces an assistant turn (text and/or tool calls) or an error answer.
type ReplyFunc func(req Request) (Reply, *HTTPError)

// EmbedFunc produces one vector per input, in input order, or an error answer.
type EmbedFunc func(req Request) ([][]float32, *HTTPError)

// RerankFunc produces one relevance score per document, in input order, or an error answer.
type RerankFunc func(req Request) ([]float64, *HTTPError)

// Option configures a Server.
type Option func(*Server)

// WithChatFunc sets the chat handler; the default echoes the last user message.
func WithChatFunc(f ChatFunc) Option { return func(s *Server) { s.chat = f } }

// WithReplyFunc sets a chat handler that may answer with tool calls, as models with function
// calling do; it replaces WithChatFunc.
func WithReplyFunc(f ReplyFunc) Option { return func(s *Server) { s.reply = f } }

// WithEmbedFunc sets the embeddings handler; the default returns HashVector of each input.
func WithEmbedFunc(f EmbedFunc) Option { return func(s *Server) { s.embed = f } }

// WithRerankFunc sets the rerank handler; the default scores by query word overlap.
func WithRerankFunc(f RerankFunc) Option { return func(s *Server) { s.rerank = f } }

// WithDimension sets the length of the default vectors when a request names no dimensions.
func WithDimension(n int) Option { return func(s *Server) { s.dimension = n } }

// WithShuffledEmbeddings makes the server list embeddings in reverse order (each still carrying its
// input index), as servers are allowed to, so clients must sort by index.
func WithShuffledEmbeddings() Option { return func(s *Server) { s.reverseEmbeddings = true } }

// WithStreamInterval makes streamed chat replies pause d between chunks, like a model generating.
func WithStreamInterval(d time.Duration) Option { return func(s *Server) { s.streamInterval = d } }

// Server is a running fake. URL is the OpenAI-style base URL including /v1; RootURL has no path
// (for Azure-style and TEI-style clients).
type Server struct {
	URL     string
	RootURL string

	srv *httptest.Server

	chat              ChatFunc
	reply             ReplyFunc
	embed             EmbedFunc
	rerank            RerankFunc
	dimension         int
	reverseEmbeddings bool
	streamInterval    time.Duration

	mu       sync.Mutex
	requests []Request
	failLeft int
	failWith HTTPError
	delay    time.Duration
}

// New starts a fake server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake server outside a test (the leak harness's operator command); Close stops
// it.
func Start(opts ...Option) *Server {
	s := &Server{dimension: DefaultDimension}
	s.chat = echoLastUserMessage
	s.embed = s.hashVectors
	s.rerank = wordOverlapScores
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.RootURL = s.srv.URL
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server and closes its connections.
func (s *Server) Close() { s.srv.Close() }

// FailNext makes the next n requests, to any endpoint, answer status with an error body and, when
// retryAfter is not empty, a Retry-After header.
func (s *Server) FailNext(n, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLeft = n
	s.failWith = HTTPError{Status: status, Message: http.StatusText(status), RetryAfter: retryAfter}
}

// Delay makes every following request wait d before answering (or until the client gives up).
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// serveHTTP records the request, applies delay and injected failures, then routes by path suffix so
// /v1/..., Azure's /openai/deployments/<name>/... and TEI's /rerank all reach the same handlers.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	req, herr := decodeRequest(r)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	delay := s.delay
	var injected *HTTPError
	if s.failLeft > 0 {
		s.failLeft--
		e := s.failWith
		injected = &e
	}
	s.mu.Unlock()

	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if injected != nil {
		writeError(w, req, injected)
		return
	}
	if herr != nil {
		writeError(w, req, herr)
		return
	}
	switch req.Endpoint {
	case "embeddings":
		s.serveEmbeddings(w, req)
	case "chat":
		s.serveChat(r.Context(), w, req)
	case "rerank":
		s.serveRerank(w, req)
	default:
		writeError(w, req, &HTTPError{Status: http.StatusNotFound, Message: "no route for " + r.URL.Path})
	}
}

// endpointOf names the endpoint a path ends with, or "".
func endpointOf(path string) string {
	switch {
	case strings.HasSuffix(path, "/embeddings"):
		return "embeddings"
	case strings.HasSuffix(path, "/chat/completions"):
		return "chat"
	case strings.HasSuffix(path, "/rerank"):
		return "rerank"
	}
	return ""
}
