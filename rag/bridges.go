package rag

import (
	"sort"
	"strings"
	"sync"

	"github.com/citahq/cita/internal/glossary"
	"github.com/citahq/cita/rag/lang"
)

// Bridge is one other way a question's word or phrase may be written in the documents: a
// synonym in the same language, or a sense in the other language, with where it came from. The
// full-text arm searches bridges beside the question's words (a document that says "incapacidad
// temporal" is found for "baja por enfermedad"), and the answerer counts a passage holding a
// bridge as holding the word, at the bridge's weight.
type Bridge struct {
	From     string  `json:"from"`      // the question's words ("presupuesto", "baja por enfermedad")
	FromLang string  `json:"from_lang"` // the language From was matched in
	To       string  `json:"to"`        // "budget", "incapacidad temporal"
	Lang     string  `json:"lang"`      // To's language ("es", "en"), "" when either
	Weight   float64 `json:"weight"`    // up to 1: how surely To means what From means here
	Via      string  `json:"via"`       // "workplace glossary:12", "dictionary", "translator"
}

// ViaDictionary is the Via of a bridge from the translator's bilingual dictionary (a sense
// of one word).
const ViaDictionary = "dictionary"

// Bridge weights: an organisation's own entry is as good as the word; cita's glossary a little
// less (a general entry may miss a sense the organisation means); a dictionary sense the
// translator chose is the translation itself; the senses it did not choose count less, so that a
// wrong sense costs little while the right one still finds its passage.
const (
	OrgGlossaryWeight     = 1.0
	BuiltinGlossaryWeight = 0.85
	ChosenSenseWeight     = 0.9
	OtherSenseWeight      = 0.6
	// OtherReadingWeight: a sense of a reading the tagger did not choose ("seguro" read as a
	// noun, insurance, where the tagger chose the adverb).
	OtherReadingWeight     = 0.5
	maxBridgesPerQuestion  = 48
	minCrossLangTermLetter = 5 // an other-language term this short is not matched in a question
)

// Lexicon finds glossary terms in questions. Build it once with NewLexicon; it is safe for
// concurrent use.
type Lexicon struct {
	byFirst map[string][]lexTerm // lang + "\x00" + first stem -> terms starting with it, longest first
	size    int
}

type lexTerm struct {
	stems  []string
	lang   string // the language it is stemmed in
	term   glossary.Term
	entry  *glossary.Entry
	weight float64
}

// WeightedGlossary is a glossary with the weight of its bridges.
type WeightedGlossary struct {
	Glossary *glossary.Glossary
	Weight   float64
}

// NewLexicon indexes glossaries (nil ones skipped). A term of no stated language is indexed in
// both.
func NewLexicon(gs ...WeightedGlossary) *Lexicon {
	lx := &Lexicon{byFirst: map[string][]lexTerm{}}
	for _, wg := range gs {
		if wg.Glossary == nil {
			continue
		}
		for i := range wg.Glossary.Entries {
			e := &wg.Glossary.Entries[i]
			for _, t := range e.Terms {
				langs := []string{t.Lang}
				if t.Lang == glossary.AnyLang {
					langs = []string{"es", "en"}
				}
				for _, l := range langs {
					stems := stemsOf(t.Text, l)
					if len(stems) == 0 {
						continue
					}
					key := l + "\x00" + stems[0]
					lx.byFirst[key] = append(lx.byFirst[key], lexTerm{stems: stems, lang: l, term: t, entry: e, weight: wg.Weight})
					lx.size++
				}
			}
		}
	}
	for k, ts := range lx.byFirst {
		sort.SliceStable(ts, func(i, j int) bool { return len(ts[i].stems) > len(ts[j].stems) })
		lx.byFirst[k] = ts
	}
	return lx
}

// Len is how many indexed terms the lexicon holds.
func (lx *Lexicon) Len() int {
	if lx == nil {
		return 0
	}
	return lx.size
}

// lexMatch is a glossary term found in a question, over tokens [start, end).
type lexMatch struct {
	start, end int
	phrase     string
	t          lexTerm
}

// Bridges returns the bridges of the glossary terms found in question, whose language is
// qlang ("es" or "en"): terms of qlang first, longest first, not overlapping; then terms of the
// other language that people borrow ("el onboarding", "per diem"), when they are multiword or
// long enough not to be a word of qlang by chance. A nil lexicon finds nothing.
func (lx *Lexicon) Bridges(question, qlang string) []Bridge {
	matches, _ := lx.match(question, qlang)
	return bridgesOf(matches)
}

// match finds the glossary terms of question (see Bridges) and returns them with the
// question's answer tokens they span.
func (lx *Lexicon) match(question, qlang string) ([]lexMatch, []string) {
	toks := answerTokens(question)
	if lx == nil || lx.size == 0 || len(toks) == 0 {
		return nil, toks
	}
	taken := make([]bool, len(toks))
	var matches []lexMatch
	for _, l := range []string{qlang, OtherLang(qlang)} {
		stems := make([]string, len(toks))
		for i, t := range toks {
			stems[i] = stemToken(t, l)
		}
		var found []lexMatch
		for i := range stems {
			for _, cand := range lx.byFirst[l+"\x00"+stems[i]] {
				if l != qlang && len(cand.stems) < 2 && len([]rune(cand.term.Text)) < minCrossLangTermLetter {
					continue
				}
				if end := i + len(cand.stems); end <= len(stems) && equalStems(stems[i:end], cand.stems) {
					found = append(found, lexMatch{start: i, end: end, phrase: strings.Join(toks[i:end], " "), t: cand})
				}
			}
		}
		// Longest first; among equal lengths, the earlier.
		sort.SliceStable(found, func(i, j int) bool {
			return found[i].end-found[i].start > found[j].end-found[j].start
		})
		for _, m := range found {
			free := true
			for k := m.start; k < m.end; k++ {
				free = free && !taken[k]
			}
			// The same span may match several entries (a word in two concepts): keep them all,
			// but not a shorter term inside a longer one already taken.
			if !free && !sameSpan(matches, m) {
				continue
			}
			for k := m.start; k < m.end; k++ {
				taken[k] = true
			}
			matches = append(matches, m)
		}
	}
	return matches, toks
}

// sameSpan reports whether a match over m's exact tokens was taken already.
func sameSpan(matches []lexMatch, m lexMatch) bool {
	for _, o := range matches {
		if o.start == m.start && o.end == m.end {
			return true
		}
	}
	return false
}

// bridgesOf turns matches into bridges, one per (from, to, language), keeping the best weight.
func bridgesOf(matches []lexMatch) []Bridge {
	type key struct{ from, to, lang string }
	best := map[key]int{}
	var out []Bridge
	for _, m := range matches {
		for _, to := range m.t.entry.Bridges(m.t.term) {
			if strings.EqualFold(to.Text, m.phrase) {
				continue
			}
			b := Bridge{From: m.phrase, FromLang: m.t.lang, To: to.Text, Lang: to.Lang, Weight: m.t.weight, Via: m.t.entry.Origin}
			k := key{b.From, strings.ToLower(b.To), b.Lang}
			if i, ok := best[k]; ok {
				if b.Weight > out[i].Weight {
					out[i] = b
				}
				continue
			}
			best[k] = len(out)
			out = append(out, b)
		}
	}
	if len(out) > maxBridgesPerQuestion {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
		out = out[:maxBridgesPerQuestion]
	}
	return out
}

func equalStems(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BridgesIn returns the bridges into lang ("" language bridges count for either).
func BridgesIn(bridges []Bridge, lang string) []Bridge {
	var out []Bridge
	for _, b := range bridges {
		if b.Lang == lang || b.Lang == "" {
			out = append(out, b)
		}
	}
	return out
}

// BuiltinLexicon is the lexicon of cita's own workplace glossary (glossary.Builtin), built once.
var BuiltinLexicon = sync.OnceValue(func() *Lexicon {
	return NewLexicon(WeightedGlossary{Glossary: glossary.Builtin(), Weight: BuiltinGlossaryWeight})
})

// Labels the full-text arm adds to its terms (SearchTrace.Terms) about the question's words:
// UnknownWordLabel before a word the readable documents never use, in any form or rendering;
// KnownWordLabel before a word its translated part found a rendering of. Hybrid moves them to
// SearchTrace.Unknown.
const (
	UnknownWordLabel = "?"
	KnownWordLabel   = "+"
)

// FoldWord is a question word as the unknown-word labels compare it: lower case, no accents.
func FoldWord(w string) string { return strings.ToLower(lang.Fold(w)) }

// Renders reports whether a question's search in lang holds sense: the translation's words, or
// a bridge into lang, hold every content word of sense (stemmed in lang). It measures whether
// cross-lingual search keeps the sense a person means (cita eval --translation).
func Renders(sense, lang, translation string, bridges []Bridge) bool {
	want := stemsOf(sense, lang)
	if len(want) == 0 {
		return false
	}
	if bagOf(translation, lang).hasAll(want) {
		return true
	}
	for _, b := range bridges {
		if (b.Lang == lang || b.Lang == "") && bagOf(b.To, lang).hasAll(want) {
			return true
		}
	}
	return false
}
