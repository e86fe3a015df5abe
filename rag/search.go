package rag

import (
	"context"
	"time"
)

// Arm names a search arm.
type Arm string

const (
	ArmVector Arm = "vector"
	ArmFTS    Arm = "fts"
)

// SearchRequest is one retrieval for a standalone query under a scope.
type SearchRequest struct {
	Query string
	Scope Scope
	Limit int // fused results wanted; 0 means the searcher's default
	// Arms restricts the search to some arms (evaluation compares them); nil means all.
	Arms []Arm
	// Translation is Query in the other language (Spanish or English) when the caller already
	// has it, e.g. from the model rewriter; empty means the searcher translates Query itself when
	// it has a Translator.
	Translation string
}

// Hit is one retrieved chunk with its document's fields and its rank in each arm.
type Hit struct {
	ChunkID    int64
	DocumentID int64
	DocVersion int64
	Title      string
	Heading    string
	Section    string
	Locator    string
	Content    string
	Path       string // the document's external id
	URL        string
	Owner      string
	Lang       string
	UpdatedAt  time.Time
	Validity   Validity        // when the document applies; a hit outside "now" is cited as history
	Score      float64         // fused score
	ArmRank    map[Arm]int     // 1-based rank in each arm that returned it
	ArmScore   map[Arm]float64 // the arm's raw score (BM25, cosine similarity)
}

// Text is the hit's chunk text with its breadcrumb.
func (h Hit) Text() string { return Chunk{Heading: h.Heading, Content: h.Content}.Text() }

// SearchResult is the fused hits plus a trace of how they were found.
type SearchResult struct {
	Hits  []Hit
	Trace SearchTrace
}

// SearchTrace records each arm's raw results and the fusion weights, for --explain and the
// "how I answered" views.
type SearchTrace struct {
	Arms    map[Arm][]ArmHit
	Weights map[Arm]float64
	Terms   []string // the full-text arm's query terms after stemming (and fuzzy expansion); "→" marks a translated term
	Timings map[string]time.Duration
	// Translated is the query in the other language that was searched too ("" when none was:
	// no translator, or it failed), and TranslatedLang its language ("es" or "en"). The
	// relevance guard and the composer compare it with passages in that language.
	Translated     string
	TranslatedLang string
	// TranslationMissing says why the query was searched without its translation although a
	// translator is configured ("translator failed: ..."): crashed, timed out, restarting or
	// not installed. "" when the translation was searched, or none was needed or configured.
	// An answer found so is not cached.
	TranslationMissing string
	// TranslationSkipped says why a configured translator was not asked ("no readable document
	// in es"): the question's language is certain and nothing it may read is in the other
	// language. "" otherwise.
	TranslationSkipped string
	// Bridges are the other ways the query's words may be written that were searched beside
	// them: glossary entries and the dictionary's senses (see Bridge).
	Bridges []Bridge
	// Unknown are the query's words (folded, see FoldWord) that no document the scope may read
	// uses, in any form, correction or rendering: what the question is about, when it is one
	// of them, is not in the documentation ("dentista" where no page mentions a dentist).
	Unknown []string
}

// ArmHit is one chunk as ranked by one arm.
type ArmHit struct {
	ChunkID int64
	Rank    int
	Score   float64
}

// Searcher runs hybrid retrieval. It returns ErrNoScope for an empty scope.
type Searcher interface {
	Search(ctx context.Context, req SearchRequest) (*SearchResult, error)
}
