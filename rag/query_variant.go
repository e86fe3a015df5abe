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
	// foreign are a stem's renderings in the other language (glossary entries), never matched
	// against passages read in this variant's language: they tell only that a source in the
	// other language talks about the word (knownElsewhere).
	foreign map[string][]altForm
}

// altForm is one other way of writing a question word: a passage holds it when it holds all of
// its stems, and then holds the word at its weight.
type altForm struct {
	stems  []string
	lang   string // the language its stems are in
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

// inForeign is how surely bag, read in the other language, holds one of st's renderings there.
func (v queryVariant) inForeign(bag stemBag, st string) float64 {
	best := 0.0
	for _, f := range v.foreign[st] {
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
// translation, the words were rendered some way: a dictionary sense the translation chose makes
// the word's other senses alternatives of it; a glossary rendering of words whose senses the
// translation chose becomes an alternative of those choices; and a glossary phrase the
// translation lost altogether (no sense of its words, no rendering of it, in the translation)
// becomes a term of its own, matched only through its renderings.
func withBridges(vs []queryVariant, bridges []Bridge) []queryVariant {
	groups := groupBridges(bridges)
	if len(groups) == 0 {
		return vs
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
		// A rendering shorter than the words it stands for stands for them only in part:
		// "vacaciones" for "días de vacaciones" holds the vacation, not the days, so each of
		// the two words counts half through it.
		attach := func(stems []string, forms []altForm) {
			for _, f := range forms {
				if n := len(uniqueStems(stems)); len(f.stems) < n {
					f.weight *= float64(len(f.stems)) / float64(n)
				}
				for _, st := range stems {
					v.alts[st] = append(v.alts[st], f)
				}
			}
		}
		rendered := map[string][]string{} // a question word (folded) -> the stems its chosen sense has here
		var phrases []*bridgeGroup
		for _, g := range groups {
			if from := stemsOf(g.from, v.lang); len(from) > 0 && held.hasAll(from) {
				// Only renderings in the variant's language: another language's stems would
				// meet this language's words by accident ("periodo" stemmed is "period").
				attach(from, g.formsIn(v.lang))
				if !g.dictionary {
					if v.foreign == nil {
						v.foreign = map[string][]altForm{}
					}
					for _, st := range from {
						v.foreign[st] = append(v.foreign[st], g.formsIn(OtherLang(v.lang))...)
					}
				}
				continue
			}
			if g.fromLang == v.lang || !v.translated {
				continue
			}
			if !g.dictionary {
				phrases = append(phrases, g)
				continue
			}
			// A dictionary sense the translation chose: the word's other senses are its
			// alternatives. None chosen (an irregular form, a multiword): nothing, rather than
			// the same word counted twice.
			for _, f := range g.formsIn(v.lang) {
				if held.hasAll(f.stems) {
					attach(f.stems, g.formsIn(v.lang))
					for _, tok := range answerTokens(g.from) {
						rendered[tok] = append(rendered[tok], f.stems...)
					}
				}
			}
		}
		for _, g := range phrases {
			var chosen []string
			for _, tok := range answerTokens(g.from) {
				chosen = append(chosen, rendered[tok]...)
			}
			forms := g.formsIn(v.lang)
			if len(forms) == 0 {
				continue
			}
			for _, f := range forms {
				if held.hasAll(f.stems) {
					chosen = append(chosen, f.stems...)
				}
			}
			if len(chosen) > 0 {
				attach(chosen, forms)
				continue
			}
			key := bridgeStem + g.from
			if _, dup := v.weight[key]; dup {
				continue
			}
			v.stems = append(v.stems, key)
			v.words[key] = g.from
			v.weight[key] = wordWeight(longestWord(g.from))
			v.alts[key] = forms
		}
	}
	return vs
}

// bridgeGroup is the renderings of one word or phrase of the question.
type bridgeGroup struct {
	from, fromLang string
	dictionary     bool // the dictionary's senses of one word, not a glossary entry
	forms          []altForm
}

// groupBridges groups bridges by the question words they render, dropping those of words that
// carry no topic ("do", "get": the dictionary lists senses of every word).
func groupBridges(bridges []Bridge) []*bridgeGroup {
	var groups []*bridgeGroup
	byFrom := map[string]*bridgeGroup{}
	for _, b := range bridges {
		if len(answerTokens(b.From)) == 0 {
			continue
		}
		dict := b.Via == ViaDictionary
		k := b.FromLang + "\x00" + b.From + "\x00" + strconv.FormatBool(dict)
		g := byFrom[k]
		if g == nil {
			g = &bridgeGroup{from: b.From, fromLang: b.FromLang, dictionary: dict}
			byFrom[k] = g
			groups = append(groups, g)
		}
		langs := []string{b.Lang}
		if b.Lang == "" {
			langs = []string{"es", "en"}
		}
		for _, l := range langs {
			if stems := stemsOf(b.To, l); len(stems) > 0 {
				g.forms = append(g.forms, altForm{stems: stems, lang: l, weight: b.Weight, text: b.To, via: b.Via})
			}
		}
	}
	return groups
}

// formsIn returns the group's renderings in lang.
func (g *bridgeGroup) formsIn(lang string) []altForm {
	var out []altForm
	for _, f := range g.forms {
		if f.lang == lang {
			out = append(out, f)
		}
	}
	return out
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
	if other := OtherLang(req.Lang); other != "" && lang.Detect(req.Question) == lang.Simple {
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
	} else if other := OtherLang(req.Lang); other != "" && len(BridgesIn(req.Bridges, other)) > 0 {
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

// uniqueStems returns stems without repeats.
func uniqueStems(stems []string) []string {
	seen := make(map[string]bool, len(stems))
	out := stems[:0:0]
	for _, st := range stems {
		if !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}
