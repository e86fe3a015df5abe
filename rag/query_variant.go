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
	lang   string
	stems  []string           // unique stems, in question order
	words  map[string]string  // stem -> the word it came from, for explanations
	weight map[string]float64 // stem -> weight before rarity
	factor float64            // 1 for the question as asked, less for a translation
	nums   []float64          // numbers the question names ("after 2 years")
}

func newQueryVariant(text, lang string, factor float64) queryVariant {
	v := queryVariant{lang: lang, words: map[string]string{}, weight: map[string]float64{}, factor: factor}
	for _, tok := range answerTokens(text) {
		st := stemToken(tok, lang)
		if _, dup := v.weight[st]; dup {
			continue
		}
		w := 1 + math.Min(float64(len([]rune(tok))), 12)/4 // longer words are rarer
		if light[tok] {
			w *= lightWeight
		}
		if isCode(tok) {
			w *= 2 // codes name exactly what is asked about; a bare number ("25 year old") may not
		}
		v.stems = append(v.stems, st)
		v.words[st] = tok
		v.weight[st] = w
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
		vs = append(vs, newQueryVariant(t, tl, 0.9))
	}
	return vs
}
