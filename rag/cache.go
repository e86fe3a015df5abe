package rag

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// AnswerCache keeps finished answers so that a repeated question is answered without searching
// or generating again. Implementations must return a hit only for an exactly equal key (never for
// another scope, nor a superset or subset of it), only while every document the answer cited
// still has the version it cited (Source.DocVersion), and only within their TTL.
type AnswerCache interface {
	// Lookup returns the cached answer for key, or nil and no error on a miss. The answer holds
	// the original Text, Sources, Lang, Abstained, AbstainReason, Hedged, Evidence and Usage
	// (the tokens the original answer spent; Cached tells that no model ran this time). An
	// abstention or a hedged reply is a miss once any document key.Groups() may read was added,
	// changed or became readable again after its search started (Answer.SearchedAt): the
	// document may answer now. It returns an error only when the cache could not be read.
	Lookup(ctx context.Context, key CacheKey) (*Answer, error)
	// Store records ans under key, replacing any earlier entry. It returns an error when the
	// entry could not be written.
	Store(ctx context.Context, key CacheKey, ans *Answer) error
}

// CacheKey identifies a cached answer: what was asked, who may see the answer, and the language
// it is written in (a question normalizes the same in Spanish and English punctuation, but the
// answer's fixed phrases differ).
type CacheKey struct {
	Query string // NormalizeQuery of the standalone query
	Scope string // Scope.Key(): the sorted access groups
	Lang  string // Answer.Lang
}

// Groups returns the groups of the key's scope (ScopeKeyGroups of Scope).
func (k CacheKey) Groups() ([]string, error) { return ScopeKeyGroups(k.Scope) }

// NewCacheKey returns the key of the answer to standalone asked under scope, written in lang.
func NewCacheKey(standalone string, scope Scope, lang string) CacheKey {
	return CacheKey{Query: NormalizeQuery(standalone), Scope: scope.Key(), Lang: lang}
}

// Valid reports whether the key may be used: a query and a scope are both required.
func (k CacheKey) Valid() bool { return k.Query != "" && k.Scope != "" }

// NormalizeQuery is the cache's form of a query: compatibility-decomposed, accents dropped,
// lower-cased, whitespace collapsed to single spaces, and sentence punctuation (?¿!¡.,;:…) at
// either end dropped ("¿Cuántos  días?" and "cuantos dias" are the same key). Other characters
// stay, so "C#", "C++", "ERR_4402" and "5.440.000" keep their form.
func NormalizeQuery(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	for _, r := range norm.NFKD.String(q) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining accent: dropped
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	return strings.Trim(s, sentencePunct)
}

// sentencePunct is what NormalizeQuery trims from both ends, with spaces.
const sentencePunct = "?¿!¡.,;:… "

// cacheLookup returns the cached answer to the question ans stands for, filled in for this
// asking, or nil on a miss. A cache error is logged and counts as a miss.
func (p *Pipeline) cacheLookup(ctx context.Context, key CacheKey, ans *Answer, onDelta func(string)) (*Answer, error) {
	if p.opts.Cache == nil || !key.Valid() {
		return nil, nil
	}
	start := time.Now()
	hit, err := p.opts.Cache.Lookup(ctx, key)
	ans.Timings["cache"] = time.Since(start)
	if err != nil {
		p.logger.WarnContext(ctx, "answer cache lookup", slog.String("error", err.Error()))
		return nil, nil
	}
	if hit == nil {
		return nil, nil
	}
	hit.Question, hit.StandaloneQuery, hit.Timings, hit.Cached = ans.Question, ans.StandaloneQuery, ans.Timings, true
	hit.onConsulted = ans.onConsulted
	// The cached text was drawn from these passages: recorded before it is sent.
	reached := sourceHits(hit.Sources)
	if hit.Search != nil {
		reached = append(reached, hit.Search.Hits...)
	}
	consulted := hit.Consulted
	hit.Consulted = nil
	if err := hit.consult(ctx, append(reached, consulted...)); err != nil {
		return nil, err
	}
	if onDelta != nil {
		onDelta(hit.Text)
	}
	return hit, nil
}

// cacheStore records a fresh answer; an error is logged, never returned: the asker already has
// the answer.
//
// An answer searched without the translation a working translator would have added (it
// crashed, timed out, was restarting) is not stored: the same question asked once the
// translator is back may find the passages in the other language.
func (p *Pipeline) cacheStore(ctx context.Context, key CacheKey, ans *Answer) {
	if p.opts.Cache == nil || !key.Valid() || ctx.Err() != nil {
		return
	}
	if ans.Search != nil && ans.Search.Trace.TranslationMissing != "" {
		p.logger.DebugContext(ctx, "answer not cached: searched without its translation",
			slog.String("reason", ans.Search.Trace.TranslationMissing))
		return
	}
	start := time.Now()
	err := p.opts.Cache.Store(ctx, key, ans)
	ans.Timings["cache_store"] = time.Since(start)
	if err != nil {
		p.logger.WarnContext(ctx, "answer cache store", slog.String("error", err.Error()))
	}
}
