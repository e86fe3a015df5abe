package rag

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Source is a numbered source of an answer: [N] in the text points to it.
type Source struct {
	N int
	Hit
}

// Label is "Title > Section" plus the locator ("p. 4") when there is one.
func (s Source) Label() string {
	l := s.Heading
	if l == "" {
		l = s.Title
	}
	if s.Locator != "" {
		l += " (" + s.Locator + ")"
	}
	return l
}

// Usage is a model call's token accounting.
type Usage struct {
	Model            string
	PromptTokens     int
	CompletionTokens int
}

// Answer is the pipeline's result for one question.
type Answer struct {
	Question        string
	StandaloneQuery string // the question rewritten to stand alone (equal to Question when it did)
	Lang            string // the language the answer is written in: "es" or "en"
	Text            string
	Sources         []Source // only the sources the text cites, numbered strongest first
	Abstained       bool
	AbstainReason   string // "weak_evidence", "no_results", "no_valid_citation", ...
	// Hedged says the evidence fell in the uncertain band: Text gives the closest passages found,
	// cited, under a line saying they may not answer the question. A hedged reply is neither an
	// answer nor an abstention: it is never cached as an answer, is shown visibly differently on
	// every surface, and is counted on its own.
	Hedged bool
	// HedgeReason says why a reply is hedged (HedgeUncertain, HedgeUnknownName,
	// HedgeUnknownWord); "" otherwise.
	HedgeReason string
	// ConfidentThreshold is the score at and above which the offline answerer answers rather
	// than hedges (PipelineOptions.ConfidentEvidence); 0 when no band applied (a model judged,
	// or no guard ran).
	ConfidentThreshold float64
	Evidence           float64
	// Answerability is what the direct-answer passage says of the question, beside Evidence.
	Answerability Answerability
	// Threshold is the relevance guard's threshold applied to Evidence: the offline one
	// (PipelineOptions.MinEvidence), or PreFilterEvidence when a model judges; 0 when no
	// guard ran (no search, a cached answer, a message that is not a question).
	Threshold float64
	Search    *SearchResult
	// Consulted are every passage that reached the reply, cited or not (see
	// Question.Consulted), in the order they did, with repeats.
	Consulted []Hit
	Usage     Usage
	Timings   map[string]time.Duration
	// SearchedAt is when the search behind the answer started (zero when none ran): a cache
	// keeps a tentative reply only while no readable document changed since.
	SearchedAt time.Time
	Cached     bool
	// ModelTimedOut says the chat model gave no usable answer (see ModelFallback), so the text
	// was composed offline from the same sources (and labelled so); such an answer is never
	// cached.
	ModelTimedOut bool
	// ModelFallback says why the text was composed offline although a model is configured:
	// "timeout", "error" (the call failed) or "bad_citations" (its reply cited no real source);
	// "" when the model answered (or none is configured).
	ModelFallback string
	// Dropped lists chunk ids that retrieval returned but the context budget left out.
	Dropped []int64
	// Steps are the searches and document reads of an agent answer; nil for a single search.
	Steps []AgentStep
	// AgentFallback says why an agent pipeline answered with a single search instead
	// ("tools_unsupported", "no_tool_calls"); empty otherwise.
	AgentFallback string
	// Expect is what kind of answer the question asks for; Quotes say why the offline composer
	// quoted what it quoted (empty for a chat model's answer).
	Expect Expect
	Quotes []QuoteChoice
	// Missing are the question's words that none of the sources holds, and MissingShare their
	// weighted share of the question.
	Missing      []string
	MissingShare float64
	// UnknownNames are the names the question is about that no source mentions ("Tokyo").
	UnknownNames []string
	// UnknownWords are the question's words that no document the scope may read uses, in any
	// form or rendering (SearchTrace.Unknown, less the question's chatty words).
	UnknownWords []string

	onConsulted func(ctx context.Context, hits []Hit) error // Question.Consulted
}

// ErrNotRecorded wraps the error of Question.Consulted: the passages could not be recorded, so
// the answer stopped before they reached it.
var ErrNotRecorded = errors.New("consulted passages not recorded")

// consult records that hits reach the reply (Consulted) and tells Question.Consulted, before
// they do.
func (a *Answer) consult(ctx context.Context, hits []Hit) error {
	if len(hits) == 0 {
		return nil
	}
	a.Consulted = append(a.Consulted, hits...)
	if a.onConsulted == nil {
		return nil
	}
	if err := a.onConsulted(ctx, hits); err != nil {
		return fmt.Errorf("%w: %w", ErrNotRecorded, err)
	}
	return nil
}

// sourceHits returns the hits of sources.
func sourceHits(sources []Source) []Hit {
	hits := make([]Hit, len(sources))
	for i, s := range sources {
		hits[i] = s.Hit
	}
	return hits
}

// Composer writes an answer's text from numbered sources: the extractive composer offline, a
// chat model online. onDelta, when non-nil, receives the text as it is produced.
type Composer interface {
	Compose(ctx context.Context, req ComposeRequest, onDelta func(string)) (*Composition, error)
}

// ComposeRequest is what a composer answers from.
type ComposeRequest struct {
	Question string // the standalone query
	Lang     string // answer language
	Sources  []Source
	// Translation is the question in the other language (cross-lingual retrieval's, "" when
	// none) and TranslationLang its language: quotes in that language are matched with it.
	Translation     string
	TranslationLang string
	// Bridges are the other ways the question's words may be written (glossary synonyms,
	// dictionary senses): a passage holding one holds the word, at the bridge's weight.
	Bridges []Bridge
	// Unknown are the question's words no readable document uses (SearchTrace.Unknown).
	Unknown []string

	reading  *reading // set by withReading
	keyFirst bool     // lead with a unit holding the question's key word (a hedged reply's)
}

// Composition is a composer's output; Text cites sources as [n].
type Composition struct {
	Text  string
	Usage Usage
	// Expect and Quotes explain an extractive answer (see Answer).
	Expect Expect
	Quotes []QuoteChoice
}

// QuoteChoice says why the offline composer quoted a unit: its shape, its score, the question
// words it holds and whether it holds the kind of answer asked for.
type QuoteChoice struct {
	ChunkID    int64    `json:"chunk_id"` // the quoted source's chunk
	N          int      `json:"n"`        // the source's number in the answer
	Kind       string   `json:"kind"`
	Score      float64  `json:"score"`
	Matched    []string `json:"matched"`
	AnswerKind string   `json:"answer_kind"`
	Text       string   `json:"text"`
}
