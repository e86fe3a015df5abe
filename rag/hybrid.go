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
}

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
	// English); the translation is searched too, under the same scope. nil, or a failing
	// translator, means monolingual search.
	Translator Translator
	// TranslatedWeight is the weight of the translated words in the full-text arm, relative to
	// the query's own words.
	TranslatedWeight float64
	// TranslatedVectorWeight also embeds the translation: the vector arm searches the
	// normalised sum of the query's vector and this many times the translation's. 0 means the
	// vector arm searches the query alone.
	TranslatedVectorWeight float64
}

// DefaultHybridOptions are the weights calibrated on the eval sets (see README, "Retrieval
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
	}
}

// Hybrid is the Searcher that runs the vector and full-text arms independently and at the same
// time, then fuses them with weighted RRF.
type Hybrid struct {
	store    ArmStore
	embedder Embedder
	opts     HybridOptions
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
	h.translate(ctx, req, &trace)
	var vecHits, ftsHits []ArmHit
	var embedTook, vecTook, ftsTook time.Duration // each written by one goroutine only
	g, gctx := errgroup.WithContext(ctx)
	if useArm(ArmVector) {
		g.Go(func() error {
			start := time.Now()
			texts := []string{req.Query}
			if h.opts.TranslatedVectorWeight > 0 && trace.Translated != "" {
				texts = append(texts, trace.Translated)
			}
			vecs, err := h.embedder.Embed(gctx, texts)
			if err != nil {
				return fmt.Errorf("embed query: %w", err)
			}
			embedTook = time.Since(start)
			start = time.Now()
			vecHits, err = h.store.SearchVector(gctx, blendVectors(vecs, h.opts.TranslatedVectorWeight), req.Scope, k)
			vecTook = time.Since(start)
			return err
		})
	}
	if useArm(ArmFTS) {
		g.Go(func() error {
			start := time.Now()
			var err error
			q := FTSQuery{Text: req.Query, Alt: trace.Translated, AltWeight: h.opts.TranslatedWeight}
			ftsHits, trace.Terms, err = h.store.SearchFTS(gctx, q, req.Scope, k)
			ftsTook = time.Since(start)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
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

// translate fills in trace.Translated: the request's own translation, else the translator's.
// A failing translator leaves it empty (the search stays monolingual) and is logged by the
// translator; the search itself never fails for it.
func (h *Hybrid) translate(ctx context.Context, req SearchRequest, trace *SearchTrace) {
	from, sure := QueryLang(req.Query)
	if req.Translation != "" {
		trace.Translated, trace.TranslatedLang = req.Translation, OtherLang(from)
		return
	}
	if h.opts.Translator == nil {
		return
	}
	start := time.Now()
	defer func() { trace.Timings["translate"] = time.Since(start) }()
	out, err := h.opts.Translator.Translate(ctx, req.Query, from, OtherLang(from))
	if err == nil && !sure && sameWords(out, req.Query) {
		// A short query may be in either language: nothing translated means the other way.
		from = OtherLang(from)
		out, err = h.opts.Translator.Translate(ctx, req.Query, from, OtherLang(from))
	}
	if err != nil || strings.TrimSpace(out) == "" || sameWords(out, req.Query) {
		return
	}
	trace.Translated, trace.TranslatedLang = out, OtherLang(from)
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
