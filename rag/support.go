package rag

import (
	"maps"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag/lang"
)

// SupportReport says how well sources answer a question.
type SupportReport struct {
	// Score is the score of the best answer unit (see the extractive composer), between 0 and
	// about 1.5. It is low when no passage holds the question's key words, and when the question
	// asks for a kind of answer (a number, a date, an address) that no matching passage holds.
	Score float64
	// Missing are the question's words that no source holds, anywhere (for the variant of the
	// question that misses the least).
	Missing []string
	// MissingShare is their weighted share of the question.
	MissingShare float64
	// UnknownNames are the capitalised names of the question no source mentions; each halves
	// Score.
	UnknownNames []string
	// Answerability is what the best unit says of the question (see Answerability).
	Answerability Answerability
	// UnknownWords are the question's content words that no readable document uses at all
	// (ComposeRequest.Unknown, less chatty and light words and numbers).
	UnknownWords []string
}

// Answerability tells "a passage states the answer" from "the passages are about the topic",
// from the unit that would be the direct answer.
type Answerability struct {
	// Local is the share of the question's subject the unit says where it stands (scoredUnit.local).
	Local float64 `json:"local"`
	// KindOK: the unit holds the kind of answer asked for (a number, a date, an address...), or
	// the question asks for no particular kind.
	KindOK bool `json:"kind_ok"`
	// Whole: the unit's own text holds every question word the sources know.
	Whole bool `json:"whole"`
	// Key is the question's most telling word about its subject (the heaviest after rarity);
	// KeyLocal: the unit says it where it stands (or a bridge of it); KeyKnown: a source holds it.
	Key      string `json:"key"`
	KeyLocal bool   `json:"key_local"`
	KeyKnown bool   `json:"key_known"`
}

// unknownNamePenalty scales the support for each name of the question that no source mentions.
const unknownNamePenalty = 0.5

// unknownNames returns the question's names (see nameWords) of three letters or more, not all
// capitals and without an apostrophe, that appear in no source, in any form: names of places,
// products or people the sources do not know.
func unknownNames(question string, sources []Source) []string {
	var all strings.Builder
	for _, s := range sources {
		all.WriteString(s.Title + "\n" + s.Section + "\n" + s.Content + "\n")
	}
	text := lang.Fold(all.String())
	var out []string
	for _, w := range nameWords(question) {
		if len([]rune(w)) < 3 || strings.ToUpper(w) == w || strings.ContainsAny(w, "'’") {
			continue
		}
		if !containsPhrase(text, lang.Fold(stemPrefix(w)), true) {
			out = append(out, w)
		}
	}
	return out
}

// stemPrefix is a word without a plural or possessive ending, for a prefix match ("Macs" finds
// "Mac", "Ondaria's" finds "Ondaria").
func stemPrefix(w string) string {
	for _, suffix := range []string{"'s", "’s", "es", "s"} {
		if t, ok := strings.CutSuffix(w, suffix); ok && len([]rune(t)) >= 3 {
			return t
		}
	}
	return w
}

// Support reports how well req's sources answer its question (and its translation).
func Support(req ComposeRequest) SupportReport {
	sources := req.Sources
	if len(sources) == 0 {
		return SupportReport{MissingShare: 1}
	}
	r := req.read()
	variants := r.variants
	rep := SupportReport{MissingShare: 1}
	if len(r.units) > 0 {
		best := r.units[0]
		rep.Score = best.score
		rep.Answerability = Answerability{Local: best.local, KindOK: best.kindOK || !r.expect.crisp(), Whole: best.whole,
			Key: best.key, KeyLocal: best.keyLocal, KeyKnown: best.keyKnown}
		for _, u := range r.units {
			if u.whole && len(variants[0].stems) > 0 {
				// Every word of the question in one passage: a keyword query answered there.
				rep.Answerability.Whole = true
				rep.Score = max(rep.Score, u.score)
				break
			}
		}
	}
	for _, v := range variants {
		found := stemBag{}
		for _, su := range r.sources.forVariant(v) {
			maps.Copy(found, su.whole)
		}
		var missing []string
		var miss, total float64
		for _, st := range v.stems {
			total += v.weight[st]
			if v.in(found, st) == 0 {
				miss += v.weight[st]
				missing = append(missing, v.words[st])
			}
		}
		if total > 0 && miss/total < rep.MissingShare {
			rep.Missing, rep.MissingShare = missing, miss/total
		}
	}
	// A name the question is about ("Tokyo", "Ireland") that no source mentions at all means the
	// sources talk about something else: a passage on Madrid's parking does not answer about
	// Tokyo's.
	rep.UnknownWords = topicWords(req.Unknown)
	unknown := unknownNames(req.Question, sources)
	if req.Translation != "" && len(unknown) > 0 {
		// "Francia" is known when the translation's "France" is.
		if viaTranslation := unknownNames(req.Translation, sources); len(viaTranslation) < len(unknown) {
			unknown = viaTranslation
		}
	}
	if len(unknown) > 0 {
		rep.Score *= math.Pow(unknownNamePenalty, float64(len(unknown)))
		rep.UnknownNames = unknown
	}
	return rep
}

// topicWords keeps the words that may say what a question is about: not chatty or light words
// (how people ask), not numbers.
func topicWords(words []string) []string {
	var out []string
	for _, w := range words {
		toks := answerTokens(w)
		if len(toks) != 1 || light[toks[0]] || vague[toks[0]] || measure.MatchString(toks[0]) ||
			strings.IndexFunc(toks[0], unicode.IsDigit) >= 0 && !isCode(toks[0]) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// measure matches a number with a short unit ("600km", "3am", "25k", "16gb"): a quantity the
// question gives, not a thing it is about.
var measure = regexp.MustCompile(`^\d+(?:[.,]\d+)?[a-z]{1,3}$`)

// vague are words people write that an analyser may read as nouns but that name nothing a
// document would be about: abbreviations of limits, time words, contractions' remains.
var vague = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`min max till anymore cant wont dont extra stuff thing things way lot bit
	time times today tomorrow yesterday week weeks month months year years day days hour hours minute minutes
	pronto manana ayer hoy vez veces cosa cosas rato dia dias semana semanas mes meses ano anos hora horas`) {
		m[w] = true
	}
	return m
}()
