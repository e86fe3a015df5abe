package rag

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag/lang"
)

// A question variant is the question as asked, or its rendering in another language (see
// ComposeRequest.Alternatives); each is matched in its own language.
type queryVariant struct {
	lang       string
	stems      []string           // unique stems, in question order
	words      map[string]string  // stem -> the word it came from, for explanations
	weight     map[string]float64 // stem -> weight before rarity
	factor     float64            // 1 for the question as asked, less for a translation
	translated bool               // the question's translation, not the question as asked
	nums       []float64          // numbers the question names ("after 2 years")
	// alts are other ways a stem's word may be written in the passages (bridges: synonyms,
	// senses in the other language), each stemmed in its own language.
	alts map[string][]altForm
}

// altForm is one other way of writing a question word: a passage holds it when it holds all of
// its stems, and then holds the word at its weight.
type altForm struct {
	stems  []string
	weight float64
	text   string
	via    string
}

// bridgeStem marks a term the variant holds only through bridges (a concept its translation
// lost): it is never a stem of a passage, so only the term's alternatives can match it.
const bridgeStem = "\x00"

// in returns how surely bag holds the variant's stem st: 1 for the stem itself, else the best
// weight of an alternative all of whose stems bag holds, else 0.
func (v queryVariant) in(bag stemBag, st string) float64 {
	if bag[st] {
		return 1
	}
	best := 0.0
	for _, f := range v.alts[st] {
		if f.weight > best && bag.hasAll(f.stems) {
			best = f.weight
		}
	}
	return best
}

// via names the alternative through which bag holds st ("" when it holds the stem itself or
// nothing), for explanations.
func (v queryVariant) via(bag stemBag, st string) string {
	if bag[st] {
		return ""
	}
	best, text := 0.0, ""
	for _, f := range v.alts[st] {
		if f.weight > best && bag.hasAll(f.stems) {
			best, text = f.weight, f.text
		}
	}
	return text
}

// withBridges adds bridges to the variants (see Bridge). A bridge whose question words a
// variant holds becomes an alternative of those words. In a variant that is the question's
// translation, a bridge into its language whose rendering the translation chose makes the other
// renderings of the same words alternatives of it; words whose every rendering the translation
// lost become a term of their own, matched only through their renderings.
func withBridges(vs []queryVariant, bridges []Bridge) []queryVariant {
	if len(bridges) == 0 {
		return vs
	}
	type group struct {
		from, fromLang string
		forms          []altForm
	}
	var groups []*group
	byFrom := map[string]*group{}
	for _, b := range bridges {
		k := b.FromLang + "\x00" + b.From
		g := byFrom[k]
		if g == nil {
			g = &group{from: b.From, fromLang: b.FromLang}
			byFrom[k] = g
			groups = append(groups, g)
		}
		langs := []string{b.Lang}
		if b.Lang == "" {
			langs = []string{"es", "en"}
		}
		for _, l := range langs {
			if stems := stemsOf(b.To, l); len(stems) > 0 {
				g.forms = append(g.forms, altForm{stems: stems, weight: b.Weight, text: b.To, via: b.Via})
			}
		}
	}
	for i := range vs {
		v := &vs[i]
		if v.alts == nil {
			v.alts = map[string][]altForm{}
		}
		held := stemBag{}
		for _, st := range v.stems {
			held[st] = true
		}
		for _, g := range groups {
			from := stemsOf(g.from, v.lang)
			if len(from) > 0 && held.hasAll(from) {
				for _, st := range from {
					v.alts[st] = append(v.alts[st], g.forms...)
				}
				continue
			}
			if g.fromLang == v.lang || !v.translated {
				continue
			}
			// The translation rendered these words somehow: by one of the bridges' renderings
			// (the others become its alternatives), or by none (a term of their own).
			chosen := false
			for _, f := range g.forms {
				if len(f.stems) > 0 && held.hasAll(f.stems) {
					chosen = true
					for _, st := range f.stems {
						v.alts[st] = append(v.alts[st], g.forms...)
					}
				}
			}
			if chosen {
				continue
			}
			key := bridgeStem + g.from
			if _, dup := v.weight[key]; dup {
				continue
			}
			v.stems = append(v.stems, key)
			v.words[key] = g.from
			v.weight[key] = wordWeight(longestWord(g.from))
			v.alts[key] = g.forms
		}
	}
	return vs
}

// longestWord is the longest content word of s.
func longestWord(s string) string {
	best := ""
	for _, t := range answerTokens(s) {
		if len([]rune(t)) > len([]rune(best)) {
			best = t
		}
	}
	return best
}

// wordWeight is a question word's weight before rarity: longer words are rarer.
func wordWeight(tok string) float64 {
	w := 1 + math.Min(float64(len([]rune(tok))), 12)/4
	if light[tok] {
		w *= lightWeight
	}
	if isCode(tok) {
		w *= 2 // codes name exactly what is asked about; a bare number ("25 year old") may not
	}
	return w
}

func newQueryVariant(text, lang string, factor float64) queryVariant {
	v := queryVariant{lang: lang, words: map[string]string{}, weight: map[string]float64{}, factor: factor}
	for _, tok := range answerTokens(text) {
		st := stemToken(tok, lang)
		if _, dup := v.weight[st]; dup {
			continue
		}
		v.stems = append(v.stems, st)
		v.words[st] = tok
		v.weight[st] = wordWeight(tok)
		if n, err := strconv.ParseFloat(strings.ReplaceAll(tok, ",", "."), 64); err == nil {
			v.nums = append(v.nums, n)
		}
	}
	return v
}

// isCode reports whether a token is a code: letters mixed with digits or underscores ("SKU-77812",
// "ERR_4402", "401k").
func isCode(tok string) bool {
	letters, digits := 0, 0
	for _, r := range tok {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case r == '_':
			return true
		}
	}
	return letters > 0 && digits > 0
}

// questionVariants are the question as asked (in its language) and its translation, which
// counts a little less.
func questionVariants(req ComposeRequest) []queryVariant {
	vs := []queryVariant{newQueryVariant(req.Question, req.Lang, 1)}
	if other := otherLang(req.Lang); other != "" && lang.Detect(req.Question) == lang.Simple {
		// Too short to tell ("dieta diaria viajes nacionales euros"): the words are matched
		// stemmed as either language, so a keyword query is not missed for a guess.
		vs = append(vs, newQueryVariant(req.Question, other, 1))
	}
	if t := strings.TrimSpace(req.Translation); t != "" {
		tl := req.TranslationLang
		if tl == "" {
			tl = AnswerLang(t)
		}
		tv := newQueryVariant(t, tl, translationFactor)
		tv.translated = true
		vs = append(vs, tv)
	} else if other := otherLang(req.Lang); other != "" && len(BridgesIn(req.Bridges, other)) > 0 {
		// No translation (no translator, or it failed): the bridges into the other language
		// still let its passages be matched, through the question's own words.
		tv := newQueryVariant(req.Question, other, translationFactor)
		tv.translated = true
		vs = append(vs, tv)
	}
	return withBridges(vs, req.Bridges)
}

// translationFactor is how much a match of the question's translation counts against a match
// of the question as asked.
const translationFactor = 0.9
