package rag

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// TranslationObserver is told of each query translation that failed, with a short reason
// ("timeout" or "error"); metrics.Metrics implements it.
type TranslationObserver interface {
	ObserveTranslationFailure(reason string)
}

// translatedPart is what a query's translation added to the search, made beside the
// original-language arms: the full-text hits of its words (to add to the asked words'), the
// vector hits of the query blended with it (to replace the query's alone), or why there is none.
type translatedPart struct {
	text, lang string
	missing    string // why no translation was searched although one was expected ("" when it was)
	fts        []ArmHit
	ftsRan     bool
	terms      []string
	senses     []Bridge // the dictionary's senses of the query's words in the translation's language
	vec        []ArmHit
	vecRan     bool
	took       map[string]time.Duration
}

// searchTranslated translates the query (unless the request brings its translation) and
// searches what the translation adds: the full-text arm's extra part (FTSExtra) and, with
// TranslatedVectorWeight, the query's vector blended with the translation's, once queryVec
// delivers the query's own. A failed translation is not an error: the extra part then holds
// only the corrections of the asked words, and missing says why. It returns the arms' errors.
func (h *Hybrid) searchTranslated(ctx context.Context, req SearchRequest, glossary []Bridge, k int, useArm func(Arm) bool, queryVec <-chan []float32) (translatedPart, error) {
	part := translatedPart{took: map[string]time.Duration{}}
	start := time.Now()
	senses := h.startSenses(ctx, req.Query)
	part.text, part.lang, part.missing = h.translateQuery(ctx, req)
	part.took["translate"] = time.Since(start)
	if part.missing != "" && ctx.Err() != nil {
		return part, ctx.Err() // an arm failed, or the caller gave up
	}
	into := part.lang
	if into == "" {
		from, _ := QueryLang(req.Query)
		into = OtherLang(from)
	}
	part.senses = senses(into)
	bridges := append(BridgesIn(withoutAnyLang(glossary), into), part.senses...)
	var ftsErr, vecErr error
	var vecTook time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !useArm(ArmVector) || part.text == "" || h.opts.TranslatedVectorWeight <= 0 {
			return
		}
		start := time.Now()
		vecs, err := h.embedder.Embed(ctx, []string{part.text})
		if err != nil {
			vecErr = fmt.Errorf("embed translated query: %w", err)
			return
		}
		var qv []float32
		select {
		case qv = <-queryVec:
		case <-ctx.Done():
			vecErr = ctx.Err()
			return
		}
		part.vec, vecErr = h.store.SearchVector(ctx, blendVectors([][]float32{qv, vecs[0]}, h.opts.TranslatedVectorWeight), req.Scope, k)
		part.vecRan = vecErr == nil
		vecTook = time.Since(start)
	}()
	if useArm(ArmFTS) {
		start := time.Now()
		q := FTSQuery{Text: req.Query, Alt: part.text, AltWeight: h.opts.TranslatedWeight, Part: FTSExtra,
			Bridges: translatedBridges(bridges, h.opts.TranslatedWeight)}
		part.fts, part.terms, ftsErr = h.store.SearchFTS(ctx, q, req.Scope, k)
		part.ftsRan = ftsErr == nil
		part.took["fts_translated"] = time.Since(start)
	}
	<-done
	if part.vecRan {
		part.took["vector_translated"] = vecTook
	}
	return part, errors.Join(ftsErr, vecErr)
}

// translateQuery returns the request's own translation, else the translator's, with its
// language. A failing translator leaves the text empty and says why in missing (and to the
// observer); a translation that changes no word is no translation, and nothing is missing.
func (h *Hybrid) translateQuery(ctx context.Context, req SearchRequest) (text, lang, missing string) {
	from, sure := QueryLang(req.Query)
	if req.Translation != "" {
		return req.Translation, OtherLang(from), ""
	}
	out, err := h.opts.Translator.Translate(ctx, req.Query, from, OtherLang(from))
	if err == nil && !sure && sameWords(out, req.Query) {
		// A short query may be in either language: nothing translated means the other way.
		from = OtherLang(from)
		out, err = h.opts.Translator.Translate(ctx, req.Query, from, OtherLang(from))
	}
	if err != nil {
		if ctx.Err() == nil && h.opts.TranslationFailures != nil {
			h.opts.TranslationFailures.ObserveTranslationFailure(translationFailure(err))
		}
		return "", "", "translator failed: " + err.Error()
	}
	if strings.TrimSpace(out) == "" || sameWords(out, req.Query) {
		return "", "", ""
	}
	return out, OtherLang(from), ""
}

// translationFailure is the metric's reason for err: "timeout" or "error".
func translationFailure(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "error"
}

// apply folds the translated part into the trace and the original arms' hits: the full-text
// arm's extra scores are added to its asked words' (BM25 sums over words), the blended vector
// hits replace the query's alone, and the translation (or why it is missing) goes in the trace.
func (p translatedPart) apply(trace *SearchTrace, fts, vec *[]ArmHit, k int) {
	trace.Translated, trace.TranslatedLang, trace.TranslationMissing = p.text, p.lang, p.missing
	trace.Bridges = append(trace.Bridges, p.senses...)
	for name, d := range p.took {
		trace.Timings[name] = d
	}
	if p.ftsRan {
		*fts = addScores(*fts, p.fts, k)
		trace.Terms = append(trace.Terms, p.terms...)
	}
	if p.vecRan {
		*vec = p.vec
	}
}

// addScores returns the k chunks with the highest summed score over a and b, ranked from 1.
func addScores(a, b []ArmHit, k int) []ArmHit {
	if len(b) == 0 {
		return a
	}
	sum := make(map[int64]float64, len(a)+len(b))
	for _, h := range a {
		sum[h.ChunkID] += h.Score
	}
	for _, h := range b {
		sum[h.ChunkID] += h.Score
	}
	out := make([]ArmHit, 0, len(sum))
	for id, s := range sum {
		out = append(out, ArmHit{ChunkID: id, Score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ChunkID < out[j].ChunkID
	})
	if len(out) > k {
		out = out[:k]
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// SenseTranslator is a Translator that can also list, for each content word of a text, every
// sense its dictionaries hold in the other language, as bridges (Via "dictionary"): the
// translation keeps one sense per word, and the search and the answerer want the others too
// ("presupuesto" is an estimate, and a budget).
type SenseTranslator interface {
	Senses(ctx context.Context, text, from, to string) ([]Bridge, error)
}

// startSenses asks the translator, when it lists senses, for those of query's words in both
// directions' likely one, beside the translation; the returned function waits for them and
// returns those into lang (none when the translator lists none, fails, or guessed the other
// direction).
func (h *Hybrid) startSenses(ctx context.Context, query string) func(lang string) []Bridge {
	st, ok := h.opts.Translator.(SenseTranslator)
	if !ok {
		return func(string) []Bridge { return nil }
	}
	from, _ := QueryLang(query)
	to := OtherLang(from)
	done := make(chan []Bridge, 1)
	go func() {
		senses, err := st.Senses(ctx, query, from, to)
		if err != nil {
			senses = nil // the translation alone is searched; its own failure is reported
		}
		done <- topical(senses)
	}()
	return func(lang string) []Bridge {
		senses := <-done
		if lang != to {
			return nil
		}
		return senses
	}
}

// withoutAnyLang drops the bridges of no stated language (searched with the query's own words).
func withoutAnyLang(bridges []Bridge) []Bridge {
	var out []Bridge
	for _, b := range bridges {
		if b.Lang != "" {
			out = append(out, b)
		}
	}
	return out
}

// translatedBridges scales the bridges searched in the translated part like the translation's
// words: a rendering in the other language is surer than the translation no more.
func translatedBridges(bridges []Bridge, weight float64) []Bridge {
	if len(bridges) == 0 {
		return nil
	}
	out := make([]Bridge, len(bridges))
	for i, b := range bridges {
		b.Weight *= weight
		out[i] = b
	}
	return out
}

// topical drops the bridges of words that carry no topic ("do", "get", "on"): a dictionary
// lists senses of every word.
func topical(bridges []Bridge) []Bridge {
	out := bridges[:0]
	for _, b := range bridges {
		if len(answerTokens(b.From)) > 0 {
			out = append(out, b)
		}
	}
	return out
}

// unknownWords takes the full-text arm's word labels out of its terms (see UnknownWordLabel):
// the asked part's unknown words, less those the translated part found a rendering of. A
// translation searched without the dictionary's senses (another translator, or the senses
// failed) cannot say which rendering is whose, so then only the words it left as they were
// (names, typos, terms it does not know) count as unknown: every other word of a question in
// the other language than the documents would look unknown.
func unknownWords(terms []string, crossLingual bool, extra translatedPart) (unknown, rest []string) {
	known := map[string]bool{}
	var asked []string
	for _, t := range terms {
		switch {
		case strings.HasPrefix(t, UnknownWordLabel):
			asked = append(asked, strings.TrimPrefix(t, UnknownWordLabel))
		case strings.HasPrefix(t, KnownWordLabel):
			known[strings.TrimPrefix(t, KnownWordLabel)] = true
		default:
			rest = append(rest, t)
		}
	}
	var kept map[string]bool
	if crossLingual && extra.text != "" && len(extra.senses) == 0 {
		kept = map[string]bool{}
		for _, w := range strings.Fields(extra.text) {
			kept[FoldWord(strings.Trim(w, "¿?¡!.,;:\"'()"))] = true
		}
	}
	for _, w := range asked {
		if f := FoldWord(w); known[f] || (kept != nil && !kept[f]) {
			continue
		}
		unknown = append(unknown, w)
	}
	return unknown, rest
}

// WordClasser is a Translator that can also tell, from its morphological analyser, which words
// may name what a question is about: nouns, proper nouns and words it does not know (names,
// codes), not verbs, adjectives, adverbs or function words ("pagan", "per", "longest").
type WordClasser interface {
	NamingWords(ctx context.Context, words []string, lang string) ([]string, error)
}

// namingUnknown keeps the unknown words that may name the question's subject, when the
// translator can tell; all of them when it cannot or fails.
func (h *Hybrid) namingUnknown(ctx context.Context, unknown []string, lang string) []string {
	wc, ok := h.opts.Translator.(WordClasser)
	if !ok || len(unknown) == 0 {
		return unknown
	}
	naming, err := wc.NamingWords(ctx, unknown, lang)
	if err != nil {
		return unknown
	}
	return naming
}

// Renderings returns what query, in from, is searched as in to: the translation (the
// translator's, "" without one) and the bridges into to (the dictionary's senses and the
// glossary entries), as Search would search them. It measures cross-lingual search's hold on
// meaning (cita eval --translation).
func (h *Hybrid) Renderings(ctx context.Context, query, from, to string) (string, []Bridge, error) {
	var text string
	if h.opts.Translator != nil {
		out, err := h.opts.Translator.Translate(ctx, query, from, to)
		if err != nil {
			return "", nil, fmt.Errorf("translate: %w", err)
		}
		text = out
	}
	bridges := BridgesIn(withoutAnyLang(h.opts.Lexicon.Bridges(query, from)), to)
	if st, ok := h.opts.Translator.(SenseTranslator); ok {
		senses, err := st.Senses(ctx, query, from, to)
		if err != nil {
			return "", nil, fmt.Errorf("senses: %w", err)
		}
		bridges = append(bridges, topical(senses)...)
	}
	return text, bridges, nil
}
