package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

const (
	// defaultSearchK and maxSearchK bound the passages one search returns to the model.
	defaultSearchK = 5
	maxSearchK     = 10
	// maxDocumentSections and documentTokens bound what one get_document returns.
	maxDocumentSections = 12
	documentTokens      = 3000
)

// agentRun is one agent answer's state: the passages shown so far, numbered in the order the
// model first saw them, and the steps taken. Every tool runs under scope.
type agentRun struct {
	agent   *Agent
	scope   rag.Scope
	numbers map[int64]int // chunk id -> source number
	sources []rag.Source
	steps   []rag.AgentStep
}

// call runs one tool call and returns the text the model gets back. A call the model got wrong
// (unknown tool, bad arguments, a document it may not read) is answered in words and counts as
// a step when it ran; past the budget nothing runs. The error is the store's or the searcher's.
func (r *agentRun) call(ctx context.Context, call rag.ToolCall, allowed bool) (string, error) {
	if !allowed {
		return "Step limit reached: answer now from the passages you have.", nil
	}
	step := rag.AgentStep{N: len(r.steps) + 1, Tool: call.Name}
	start := time.Now()
	var out string
	var err error
	switch call.Name {
	case "search":
		out, err = r.search(ctx, call.Arguments, &step)
	case "get_document":
		out, err = r.getDocument(ctx, call.Arguments, &step)
	default:
		step.Error = "unknown tool"
		out = fmt.Sprintf("There is no tool %q: use search or get_document.", call.Name)
	}
	step.Took = time.Since(start)
	if err != nil {
		return "", err
	}
	r.steps = append(r.steps, step)
	return out, nil
}

func (r *agentRun) search(ctx context.Context, raw string, step *rag.AgentStep) (string, error) {
	var args struct {
		Query string `json:"query"`
		K     int    `json:"k"`
	}
	if err := json.Unmarshal([]byte(orEmptyObject(raw)), &args); err != nil || strings.TrimSpace(args.Query) == "" {
		step.Error = "invalid arguments"
		return `Invalid arguments: give {"query": "what to look for"}.`, nil
	}
	step.Query = strings.TrimSpace(args.Query)
	k := args.K
	if k <= 0 {
		k = defaultSearchK
	}
	k = min(k, maxSearchK)
	res, err := r.agent.searcher.Search(ctx, rag.SearchRequest{Query: step.Query, Scope: r.scope, Limit: k})
	if err != nil {
		return "", fmt.Errorf("agent search: %w", err)
	}
	if len(res.Hits) == 0 {
		return "No passage matched. Try other words.", nil
	}
	return r.show("Passages, strongest first:", res.Hits, step, 0), nil
}

func (r *agentRun) getDocument(ctx context.Context, raw string, step *rag.AgentStep) (string, error) {
	var args struct {
		DocumentID json.Number `json:"document_id"`
	}
	id, err := int64(0), error(nil)
	if err = json.Unmarshal([]byte(orEmptyObject(raw)), &args); err == nil {
		id, err = args.DocumentID.Int64()
	}
	if err != nil || id <= 0 {
		step.Error = "invalid arguments"
		return `Invalid arguments: give {"document_id": <the number shown beside a passage>}.`, nil
	}
	step.DocumentID = id
	hits, err := r.agent.docs.DocumentSections(ctx, id, r.scope)
	if errors.Is(err, rag.ErrDocumentNotFound) {
		step.Error = "not found"
		return fmt.Sprintf("Document %d was not found.", id), nil
	}
	if err != nil {
		return "", fmt.Errorf("agent get_document: %w", err)
	}
	return r.show(fmt.Sprintf("Sections of document %d, in order:", id), hits, step, documentTokens), nil
}

// show numbers hits (a chunk shown before keeps its number and is not repeated) and formats
// them as the composer formats sources. budget, when positive, bounds the tokens of new text.
func (r *agentRun) show(title string, hits []rag.Hit, step *rag.AgentStep, budget int) string {
	var b strings.Builder
	b.WriteString(title + "\n")
	used, left := 0, 0
	for i, h := range hits {
		if budget > 0 && (i >= maxDocumentSections || (used > 0 && used+approxTokens(h.Text()) > budget)) {
			left = len(hits) - i
			break
		}
		step.Results++
		step.ChunkIDs = append(step.ChunkIDs, h.ChunkID)
		if n, ok := r.numbers[h.ChunkID]; ok {
			fmt.Fprintf(&b, "\n[%d] (shown above)\n", n)
			continue
		}
		used += approxTokens(h.Text())
		s := rag.Source{N: len(r.sources) + 1, Hit: h}
		r.numbers[h.ChunkID] = s.N
		r.sources = append(r.sources, s)
		fmt.Fprintf(&b, "\n%s, document id %d\n<source id=\"%d\">\n%s\n</source>\n", sourceHeader(s), h.DocumentID, s.N,
			escapeText(strings.TrimSpace(h.Content)))
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n(%d more sections not shown: search for them by topic.)\n", left)
	}
	return b.String()
}

func orEmptyObject(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "{}"
	}
	return raw
}

func approxTokens(s string) int { return len(strings.Fields(s))*4/3 + 1 }
