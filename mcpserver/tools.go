package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

const (
	defaultK       = 8
	maxK           = 20
	maxQueryChars  = 2000
	maxDocSections = 200
)

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query string `json:"query" jsonschema:"what to look for, in a few words or a question"`
	K     int    `json:"k,omitempty" jsonschema:"how many passages to return (1-20, default 8)"`
}

// Passage is one search result: a section of a document the caller may read.
type Passage struct {
	DocumentID int64   `json:"document_id" jsonschema:"pass to get_document to read the whole document"`
	ChunkID    int64   `json:"chunk_id"`
	Title      string  `json:"title"`
	Section    string  `json:"section,omitempty"`
	Locator    string  `json:"locator,omitempty" jsonschema:"page, sheet or slide, when the format has one"`
	Path       string  `json:"path" jsonschema:"the document's path in its source"`
	URL        string  `json:"url,omitempty"`
	Updated    string  `json:"updated" jsonschema:"the document's last update, YYYY-MM-DD"`
	Owner      string  `json:"owner,omitempty"`
	Text       string  `json:"text"`
	Score      float64 `json:"score,omitempty"`
}

// SearchOutput is the search tool's result.
type SearchOutput struct {
	Passages []Passage `json:"passages"`
}

// GetDocumentInput is the get_document tool's arguments.
type GetDocumentInput struct {
	DocumentID int64 `json:"document_id" jsonschema:"the document_id of a search result"`
}

// Section is one section of a document.
type Section struct {
	ChunkID int64  `json:"chunk_id"`
	Section string `json:"section,omitempty"`
	Locator string `json:"locator,omitempty"`
	Text    string `json:"text"`
}

// DocumentOutput is the get_document tool's result: the sections the caller may read.
type DocumentOutput struct {
	DocumentID int64     `json:"document_id"`
	Title      string    `json:"title"`
	Path       string    `json:"path"`
	URL        string    `json:"url,omitempty"`
	Updated    string    `json:"updated"`
	Owner      string    `json:"owner,omitempty"`
	Sections   []Section `json:"sections"`
	Truncated  bool      `json:"truncated,omitempty"`
}

// AskInput is the ask tool's arguments.
type AskInput struct {
	Question string `json:"question" jsonschema:"the question, in English or Spanish"`
}

// CitedSource is a source an answer cites as [n].
type CitedSource struct {
	N          int    `json:"n"`
	DocumentID int64  `json:"document_id"`
	Title      string `json:"title"`
	Section    string `json:"section,omitempty"`
	Path       string `json:"path"`
	URL        string `json:"url,omitempty"`
	Updated    string `json:"updated"`
}

// AskOutput is the ask tool's result.
type AskOutput struct {
	Answer        string        `json:"answer"`
	Abstained     bool          `json:"abstained"`
	AbstainReason string        `json:"abstain_reason,omitempty"`
	Hedged        bool          `json:"hedged" jsonschema:"the sources are the closest found and may not answer the question; the answer says so"`
	HedgeReason   string        `json:"hedge_reason,omitempty"`
	Sources       []CitedSource `json:"sources"`
	Steps         int           `json:"steps,omitempty" jsonschema:"searches and reads made in agent mode"`
}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "search", Title: "Search documents",
		Description: "Search the organisation's documents you may read. Returns passages with title, section, path or URL, " +
			"last update and the document_id for get_document.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, audited(s, "search", s.search))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_document", Title: "Read a document",
		Description: "Return the sections of one document that you may read, in order, by the document_id of a search result.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, audited(s, "get_document", s.getDocument))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "ask", Title: "Ask a question",
		Description: "Answer a question from the documents you may read, citing every claim as [n] with numbered sources, " +
			"or say that the documents do not answer it. When the evidence is uncertain, hedged is true and the answer " +
			"gives the closest passages, saying they may not answer the question.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, audited(s, "ask", s.ask))
}

// toolError is a refusal the caller can act on: it is shown to the client as the tool's error
// text (IsError), while other errors are logged and reported as a failure without detail.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func refuse(format string, args ...any) error { return &toolError{msg: fmt.Sprintf(format, args...)} }

func (s *Server) search(ctx context.Context, c *Caller, in SearchInput) (*mcp.CallToolResult, SearchOutput, int, error) {
	q, err := cleanQuery(in.Query, "query")
	if err != nil {
		return nil, SearchOutput{}, 0, err
	}
	k := in.K
	if k <= 0 {
		k = defaultK
	}
	k = min(k, maxK)
	res, err := s.opts.Searcher.Search(ctx, rag.SearchRequest{Query: q, Scope: c.Scope, Limit: k})
	if err != nil {
		return nil, SearchOutput{}, 0, fmt.Errorf("search: %w", err)
	}
	out := SearchOutput{Passages: []Passage{}}
	var b strings.Builder
	for i, h := range res.Hits {
		p := Passage{DocumentID: h.DocumentID, ChunkID: h.ChunkID, Title: h.Title, Section: h.Section, Locator: h.Locator,
			Path: h.Path, URL: h.URL, Updated: day(h.UpdatedAt), Owner: h.Owner, Text: h.Content, Score: h.Score}
		out.Passages = append(out.Passages, p)
		fmt.Fprintf(&b, "[%d] %s — %s (updated %s, document_id %d)\n%s\n\n", i+1, heading(h.Title, h.Section, h.Locator),
			where(h.Path, h.URL), p.Updated, h.DocumentID, strings.TrimSpace(h.Content))
	}
	if len(out.Passages) == 0 {
		b.WriteString("No passage you may read matched. Try other words.")
	}
	return textResult(b.String()), out, len(out.Passages), nil
}

func (s *Server) getDocument(ctx context.Context, c *Caller, in GetDocumentInput) (*mcp.CallToolResult, DocumentOutput, int, error) {
	if in.DocumentID <= 0 {
		return nil, DocumentOutput{}, 0, refuse("give the document_id of a search result")
	}
	hits, err := s.opts.Documents.DocumentSections(ctx, in.DocumentID, c.Scope)
	if errors.Is(err, rag.ErrDocumentNotFound) {
		return nil, DocumentOutput{}, 0, refuse("document %d was not found", in.DocumentID)
	}
	if err != nil {
		return nil, DocumentOutput{}, 0, fmt.Errorf("get document: %w", err)
	}
	h0 := hits[0]
	out := DocumentOutput{DocumentID: h0.DocumentID, Title: h0.Title, Path: h0.Path, URL: h0.URL, Updated: day(h0.UpdatedAt),
		Owner: h0.Owner, Sections: []Section{}}
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s (updated %s)\n", h0.Title, where(h0.Path, h0.URL), out.Updated)
	for i, h := range hits {
		if i == maxDocSections {
			out.Truncated = true
			fmt.Fprintf(&b, "\n(%d more sections not shown)\n", len(hits)-i)
			break
		}
		out.Sections = append(out.Sections, Section{ChunkID: h.ChunkID, Section: h.Section, Locator: h.Locator, Text: h.Content})
		fmt.Fprintf(&b, "\n## %s\n%s\n", heading("", h.Section, h.Locator), strings.TrimSpace(h.Content))
	}
	return textResult(b.String()), out, len(out.Sections), nil
}

func (s *Server) ask(ctx context.Context, c *Caller, in AskInput) (*mcp.CallToolResult, AskOutput, int, error) {
	q, err := cleanQuery(in.Question, "question")
	if err != nil {
		return nil, AskOutput{}, 0, err
	}
	if !s.askRate.Allow(strings.ToLower(c.Email), s.opts.Now()) {
		return nil, AskOutput{}, 0, refuse("too many questions from %s: wait a minute (search is not limited)", c.Email)
	}
	if s.opts.Queue != nil {
		release, err := s.opts.Queue.Acquire(ctx, nil)
		if errors.Is(err, bot.ErrQueueFull) {
			return nil, AskOutput{}, 0, refuse("cita is busy answering other questions: try again in a minute")
		}
		if err != nil {
			return nil, AskOutput{}, 0, fmt.Errorf("wait for an answer worker: %w", err)
		}
		defer release()
	}
	ans, err := s.opts.Answerer.Answer(ctx, rag.Question{Text: q, Scope: c.Scope}, nil)
	if err != nil {
		return nil, AskOutput{}, 0, fmt.Errorf("answer: %w", err)
	}
	out := AskOutput{Answer: ans.Text, Abstained: ans.Abstained, Hedged: ans.Hedged, Sources: []CitedSource{}, Steps: len(ans.Steps)}
	if ans.Abstained {
		out.AbstainReason = ans.AbstainReason
	}
	if ans.Hedged {
		out.HedgeReason = ans.HedgeReason
	}
	var b strings.Builder
	b.WriteString(ans.Text)
	if len(ans.Sources) > 0 {
		b.WriteString("\n\nSources:")
	}
	for _, src := range ans.Sources {
		cs := CitedSource{N: src.N, DocumentID: src.DocumentID, Title: src.Title, Section: src.Section, Path: src.Path,
			URL: src.URL, Updated: day(src.UpdatedAt)}
		out.Sources = append(out.Sources, cs)
		fmt.Fprintf(&b, "\n[%d] %s — %s (updated %s)", src.N, src.Label(), where(src.Path, src.URL), cs.Updated)
	}
	return textResult(b.String()), out, len(out.Sources), nil
}

// cleanQuery trims a query and refuses an empty or oversized one.
func cleanQuery(q, field string) (string, error) {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return "", refuse("give a %s", field)
	case utf8.RuneCountInString(q) > maxQueryChars:
		return "", refuse("the %s is longer than %d characters: shorten it", field, maxQueryChars)
	}
	return q, nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

func heading(title, section, locator string) string {
	parts := []string{}
	for _, p := range []string{title, section} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	h := strings.Join(parts, " > ")
	if locator != "" {
		h += " (" + locator + ")"
	}
	return h
}

func where(path, url string) string {
	if url != "" {
		return url
	}
	return path
}
