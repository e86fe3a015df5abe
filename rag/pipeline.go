package rag

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/citahq/cita/rag/lang"
)

// Turn is one earlier message of a conversation.
type Turn struct {
	Role string // "user" or "assistant"
	Text string
}

// Question is one turn to answer: the latest message, the thread's earlier turns and the scope
// of everyone who will see the answer.
type Question struct {
	Text    string
	History []Turn
	Scope   Scope
}

// Rewriter turns a follow-up into a standalone query using the earlier turns.
type Rewriter interface {
	Rewrite(ctx context.Context, question string, history []Turn) (string, error)
}

// PipelineOptions tunes retrieval, context assembly and abstention.
type PipelineOptions struct {
	Retrieve      int     // hits retrieved; default 8
	MaxSources    int     // sources given to the composer; default 5
	ContextTokens int     // token budget for the sources' text; default 2500
	MinEvidence   float64 // abstain below this evidence score (see Evidence); default 0.5
}

func (o PipelineOptions) withDefaults() PipelineOptions {
	if o.Retrieve <= 0 {
		o.Retrieve = 8
	}
	if o.MaxSources <= 0 {
		o.MaxSources = 5
	}
	if o.ContextTokens <= 0 {
		o.ContextTokens = 2500
	}
	if o.MinEvidence == 0 {
		o.MinEvidence = DefaultMinEvidence
	}
	return o
}

// DefaultMinEvidence is the relevance guard's threshold, calibrated with `cita eval --abstain`
// on the XQuAD sets (see README).
const DefaultMinEvidence = 0.5

// Pipeline answers questions: rewrite -> hybrid search -> guard -> assemble -> compose ->
// verify citations. It is shared by the CLI and the chat adapters.
type Pipeline struct {
	searcher Searcher
	composer Composer
	rewriter Rewriter // nil: questions are searched as they are
	opts     PipelineOptions
}

// NewPipeline returns a pipeline. rewriter may be nil.
func NewPipeline(searcher Searcher, composer Composer, rewriter Rewriter, opts PipelineOptions) *Pipeline {
	return &Pipeline{searcher: searcher, composer: composer, rewriter: rewriter, opts: opts.withDefaults()}
}

// Answer answers q. It returns ErrNoScope for an empty scope; an abstention is an Answer with
// Abstained set, not an error.
func (p *Pipeline) Answer(ctx context.Context, q Question, onDelta func(string)) (*Answer, error) {
	if q.Scope.Empty() {
		return nil, ErrNoScope
	}
	ans := &Answer{Question: q.Text, StandaloneQuery: q.Text, Lang: AnswerLang(q.Text), Timings: map[string]time.Duration{}}
	if p.rewriter != nil && len(q.History) > 0 {
		start := time.Now()
		rewritten, err := p.rewriter.Rewrite(ctx, q.Text, q.History)
		ans.Timings["rewrite"] = time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("rewrite follow-up: %w", err)
		}
		ans.StandaloneQuery = rewritten
	}
	start := time.Now()
	res, err := p.searcher.Search(ctx, SearchRequest{Query: ans.StandaloneQuery, Scope: q.Scope, Limit: p.opts.Retrieve})
	ans.Timings["search"] = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	ans.Search = res
	if len(res.Hits) == 0 {
		return abstain(ans, "no_results", "", onDelta), nil
	}
	ans.Evidence = Evidence(ans.StandaloneQuery, res.Hits)
	if ans.Evidence < p.opts.MinEvidence {
		return abstain(ans, "weak_evidence", res.Hits[0].Owner, onDelta), nil
	}
	sources, dropped := AssembleSources(res.Hits, p.opts.MaxSources, p.opts.ContextTokens)
	ans.Dropped = dropped
	start = time.Now()
	comp, err := p.composer.Compose(ctx, ComposeRequest{Question: ans.StandaloneQuery, Lang: ans.Lang, Sources: sources}, onDelta)
	ans.Timings["generate"] = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("compose answer: %w", err)
	}
	ans.Usage = comp.Usage
	text, cited, invalid := VerifyCitations(comp.Text, sources)
	if len(invalid) > 0 {
		ans.AbstainReason = fmt.Sprintf("removed citations to unknown sources %v", invalid)
	}
	if len(cited) == 0 {
		return abstain(ans, "no_valid_citation", sources[0].Owner, nil), nil
	}
	ans.Text, ans.Sources = text, cited
	return ans, nil
}

func abstain(ans *Answer, reason, owner string, onDelta func(string)) *Answer {
	ans.Abstained = true
	ans.AbstainReason = reason
	ans.Text = NotFoundText(ans.Lang, owner)
	ans.Sources = nil
	if onDelta != nil {
		onDelta(ans.Text)
	}
	return ans
}

// AnswerLang is the language to answer a question in: Spanish or English, English when unsure.
func AnswerLang(question string) string {
	if lang.Detect(question) == "es" {
		return "es"
	}
	if strings.ContainsAny(question, "¿¡ñÑáéíóú") {
		return "es"
	}
	return "en"
}
