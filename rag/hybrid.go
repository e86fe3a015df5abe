package rag

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"
)

// ArmStore runs the two search arms and loads hits; every method filters by scope in SQL and
// returns ErrNoScope for an empty scope.
type ArmStore interface {
	SearchVector(ctx context.Context, vec []float32, scope Scope, k int) ([]ArmHit, error)
	SearchFTS(ctx context.Context, query FTSQuery, scope Scope, k int) ([]ArmHit, []string, error)
	LoadHits(ctx context.Context, ids []int64, scope Scope) ([]Hit, error)
}

// FTSQuery is the full-text arm's query: the words as asked and, optionally, the query in the
// other language, whose words count as a lower-weight alternative (AltWeight times their BM25).
type FTSQuery struct {
	Text      string
	Alt       string
	AltWeight float64
	// Bridges are other ways the question's words may be written (Bridge), searched beside
	// them at their weights; the renderings of one word or phrase count once, their best.
	Bridges []Bridge
	// Part selects which of the query's terms are scored; the zero value scores them all.
	Part FTSPart
}

// FTSPart splits a cross-lingual full-text query in two, so the asked words can be searched
// while the translation is still being made: FTSAsked scores the asked words (correcting none),
// and FTSExtra what the translation adds (its novel words, weighted by AltWeight, and the
// corrections of asked words it left as they were; with no Alt, the corrections of every
// unknown asked word). BM25 sums over words, so the two parts' scores add up to FTSAll's
// (exactly while the question has no more words than the arm scores at once; past that, each
// part keeps its own strongest words).
type FTSPart int

const (
	FTSAll FTSPart = iota
	FTSAsked
	FTSExtra
)

// HybridOptions tunes fusion. The zero value is not useful; start from DefaultHybridOptions.
type HybridOptions struct {
	CandidatesPerArm int             // how many hits each arm returns before fusion
	Limit            int             // fused hits returned when the request sets none
	Weights          map[Arm]float64 // RRF weight per arm
	// IdentifierBoost multiplies the full-text arm's weight when the query holds a code or a
	// number ("ERR_4402", "5.440.000"): exact tokens are what full text finds and vectors blur.
	IdentifierBoost float64
	// ScoreAware scales each RRF contribution by the hit's normalised score in its arm (see
	// FuseRRF).
	ScoreAware bool
	// Translator, when set, translates each query into the other language (Spanish <->
	// English) while the query's own words are searched; what the translation adds is searched
	// when it arrives, under the same scope. nil means monolingual search; a failing
	// translator too, and the trace says why (SearchTrace.TranslationMissing).
	Translator Translator
	// TranslatedWeight is the weight of the translated words in the full-text arm, relative to
	// the query's own words.
	TranslatedWeight float64
	// TranslatedVectorWeight also embeds the translation: the vector arm searches the
	// normalised sum of the query's vector and this many times the translation's. 0 means the
	// vector arm searches the query alone.
	TranslatedVectorWeight float64
	// TranslationFailures, when set, is told of every translation that failed (a metric).
	TranslationFailures TranslationObserver
	// Lexicon finds glossary terms in each query; their bridges (other ways of writing them,
	// in either language) are searched beside the query's words. nil means none.
	Lexicon *Lexicon
}

// DefaultHybridOptions are the weights calibrated on the eval sets (see docs/answer-quality.md, "Retrieval
// quality"): the full-text arm leads, the vector arm adds recall for paraphrases and typos.
func DefaultHybridOptions() HybridOptions {
	return HybridOptions{
		CandidatesPerArm:       50,
		Limit:                  10,
		Weights:                map[Arm]float64{ArmFTS: 1.0, ArmVector: 0.5},
		IdentifierBoost:        2,
		ScoreAware:             true,
		TranslatedWeight:       0.7,
		TranslatedVectorWeight: 0.7,
		Lexicon:                BuiltinLexicon(),
	}
}

// Hybrid is the Searcher that runs the vector and full-text arms independently and at the same
// time, then fuses them with weighted RRF.
type Hybrid struct {
	store    ArmStore
	embedder Embedder
	opts     HybridOptions
	langs    readableLanguages // per scope, when the store is a LanguageLister
}

// NewHybrid returns a hybrid searcher over store, embedding queries with embedder.
func NewHybrid(store ArmStore, embedder Embedder, opts HybridOptions) *Hybrid {
	return &Hybrid{store: store, embedder: embedder, opts: opts}
}

// Search implements Searcher. It returns ErrNoScope for an empty scope, before any I/O.
func (h *Hybrid) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	if req.Scope.Empty() {
		return nil, ErrNoScope
	}
	limit := req.Limit
	if limit <= 0 {
		limit = h.opts.Limit
	}
	k := max(h.opts.CandidatesPerArm, limit)
	useArm := func(a Arm) bool {
		if req.Arms == nil {
			return true
		}
		for _, x := range req.Arms {
			if x == a {
				return true
			}
		}
		return false
	}
	trace := SearchTrace{Arms: map[Arm][]ArmHit{}, Weights: map[Arm]float64{}, Timings: map[string]time.Duration{}}
	var vecHits, ftsHits []ArmHit
	var embedTook, vecTook, ftsTook time.Duration // each written by one goroutine only
	queryVec := make(chan []float32, 1)           // the query's vector, for the translation's blend
	var extra translatedPart
	g, gctx := errgroup.WithContext(ctx)
	// The vector arm starts at once: it needs nothing the others decide. The full-text arm and
	// the translation start once it is known whether the question is searched across languages
	// (the scope's readable languages, looked up beside the vector arm); the translation is made
	// beside the arms, and what it adds is searched when it arrives, so the arms never wait for
	// the translator.
	if useArm(ArmVector) {
		g.Go(func() error {
			start := time.Now()
			vecs, err := h.embedder.Embed(gctx, []string{req.Query})
			if err != nil {
				return fmt.Errorf("embed query: %w", err)
			}
			queryVec <- vecs[0]
			embedTook = time.Since(start)
			start = time.Now()
			vecHits, err = h.store.SearchVector(gctx, vecs[0], req.Scope, k)
			vecTook = time.Since(start)
			return err
		})
	}
	crossLingual := req.Translation != ""
	if h.opts.Translator != nil && !crossLingual {
		if skip := h.translationNotNeeded(ctx, req); skip != "" {
			trace.TranslationSkipped = skip
		} else {
			crossLingual = true
		}
	}
	qlang, _ := QueryLang(req.Query)
	trace.Bridges = h.opts.Lexicon.Bridges(req.Query, qlang)
	if useArm(ArmFTS) {
		g.Go(func() error {
			start := time.Now()
			// Alone, the arm searches every bridge; beside the translated part, the bridges in
			// the query's own language (the translated part searches the others).
			q := FTSQuery{Text: req.Query, Bridges: trace.Bridges}
			if crossLingual {
				q.Part, q.Bridges = FTSAsked, BridgesIn(trace.Bridges, qlang)
			}
			var err error
			ftsHits, trace.Terms, err = h.store.SearchFTS(gctx, q, req.Scope, k)
			ftsTook = time.Since(start)
			return err
		})
	}
	if crossLingual {
		g.Go(func() error {
			var err error
			extra, err = h.searchTranslated(gctx, req, trace.Bridges, k, useArm, queryVec)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	extra.apply(&trace, &ftsHits, &vecHits, k)
	trace.Unknown, trace.Terms = unknownWords(trace.Terms, crossLingual, extra)
	trace.Unknown = h.namingUnknown(ctx, trace.Unknown, qlang)
	trace.Timings["embed"], trace.Timings["vector"], trace.Timings["fts"] = embedTook, vecTook, ftsTook
	trace.Arms[ArmVector], trace.Arms[ArmFTS] = vecHits, ftsHits
	for a, w := range h.opts.Weights {
		if useArm(a) {
			trace.Weights[a] = w
		}
	}
	if HasIdentifier(req.Query) && trace.Weights[ArmFTS] > 0 && h.opts.IdentifierBoost > 0 {
		trace.Weights[ArmFTS] *= h.opts.IdentifierBoost
	}
	fused := FuseRRF(trace.Arms, trace.Weights, h.opts.ScoreAware)
	// An exact reference ("art. 99") is the full-text arm's to answer: when both arms are
	// fused, its order leads and a hit titled with the reference itself goes first.
	ref, isRef := ParseReference(req.Query)
	isRef = isRef && trace.Weights[ArmFTS] > 0 && trace.Weights[ArmVector] > 0
	if isRef {
		fused = leadWith(fused, ArmFTS)
	}
	if len(fused) > limit {
		fused = fused[:limit]
	}
	ids := make([]int64, len(fused))
	for i, f := range fused {
		ids[i] = f.ChunkID
	}
	start := time.Now()
	loaded, err := h.store.LoadHits(ctx, ids, req.Scope)
	if err != nil {
		return nil, err
	}
	trace.Timings["load"] = time.Since(start)
	byID := make(map[int64]Hit, len(loaded))
	for _, l := range loaded {
		byID[l.ChunkID] = l
	}
	res := &SearchResult{Trace: trace}
	for _, f := range fused {
		hit, ok := byID[f.ChunkID]
		if !ok {
			continue // deleted between the arms and the load, or not readable
		}
		hit.Score, hit.ArmRank, hit.ArmScore = f.Score, f.ArmRank, f.ArmScore
		res.Hits = append(res.Hits, hit)
	}
	if isRef {
		res.Hits = promoteNamed(res.Hits, ref)
	}
	return res, nil
}

// blendVectors returns the one vector given, or the normalised sum of the first (the query's)
// and weight times the second (its translation's): near the documents of either language.
func blendVectors(vecs [][]float32, weight float64) []float32 {
	if len(vecs) == 1 {
		return vecs[0]
	}
	out := make([]float32, len(vecs[0]))
	for i := range out {
		out[i] = vecs[0][i] + float32(weight)*vecs[1][i]
	}
	var norm float64
	for _, x := range out {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return vecs[0]
	}
	scale := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= scale
	}
	return out
}

// HasIdentifier reports whether the query holds a code or number people search verbatim: a word
// with a digit or an underscore, or an upper-case acronym of two or more letters.
func HasIdentifier(q string) bool {
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("¿?¡!,;:\"()", r) }) {
		letters, upper := 0, 0
		for _, r := range w {
			switch {
			case unicode.IsDigit(r) || r == '_':
				return true
			case unicode.IsLetter(r):
				letters++
				if unicode.IsUpper(r) {
					upper++
				}
			}
		}
		if letters >= 2 && upper == letters {
			return true
		}
	}
	return false
}
