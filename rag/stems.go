package rag

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"
)

// stemToken returns a content token's stem in lang ("es" or "en"; anything else falls back to
// TokenStem). Tokens holding a digit are codes or numbers and stay whole.
func stemToken(tok, lang string) string {
	if strings.IndexFunc(tok, unicode.IsDigit) >= 0 {
		return tok
	}
	switch lang {
	case "es":
		return stems.of(tok, lang, spanishStem)
	case "en":
		return stems.of(tok, lang, englishStem)
	}
	return TokenStem(tok)
}

func spanishStem(tok string) string { return spanish.Stem(tok, false) }
func englishStem(tok string) string { return english.Stem(tok, false) }

// stems remembers the words the answerer has stemmed: every answer stems the same passages'
// words again (a unit's text, its list, the sentence after it), and snowball stemming was half
// of an offline answer's CPU under load.
var stems = stemCache{max: 1 << 18}

// stemCache maps "lang:word" to its stem. It forgets everything when it holds max words, so a
// stream of new words cannot grow it without bound.
type stemCache struct {
	m   sync.Map
	n   atomic.Int64
	max int64
}

func (c *stemCache) of(tok, lang string, stem func(string) string) string {
	key := lang + ":" + tok
	if s, ok := c.m.Load(key); ok {
		return s.(string)
	}
	s := stem(tok)
	if c.n.Add(1) > c.max {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(key, s)
	return s
}

// answerTokens are ContentTokens as the answerer matches them: hyphenated and snake_case words
// without digits split into their parts ("per-person", "five-year", "price_usd_per_lb"), and number words written as digits ("five"
// and "cinco" are "5"), so that a question's "5 year" meets a document's "five-year".
func answerTokens(text string) []string {
	var out []string
	for _, t := range ContentTokens(text) {
		if chatty[t] {
			continue
		}
		if strings.ContainsAny(t, "-_") && strings.IndexFunc(t, unicode.IsDigit) < 0 {
			for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == '-' || r == '_' }) {
				if p != "" && !stopwords[p] {
					out = append(out, numberWord(p))
				}
			}
			continue
		}
		out = append(out, numberWord(t))
	}
	return out
}

// chatty are words of how people ask, not of what they ask about: interrogatives that
// DetectExpect reads ("how many", "cuántos"), fillers and contractions' remains. They are left out
// of answer matching (not of search: ContentTokens keeps them).
var chatty = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`many much long old often soon early far quickly here still just really actually
	stuff thing things folks guys someone somebody anyone anybody whole ex re ll ve won don didn doesn isn aren wasn
	going gets got getting want wants wanna need needs tell gives put let lets ok okay hey hi hello please thanks thank
	else etc cuanto cuanta cuantos cuantas mucho poco aqui alla todavia oye hola porfa gracias quiero necesito saber
	alguien algo cosa cosas vale tengo tienes tiene hay voy whats im cuesta cuestan`) {
		m[w] = true
	}
	return m
}()

// light are verbs and adverbs that carry a question without saying what it is about ("makes me
// log in again", "¿puedo volver a…?"): they count, at lightWeight of a word of their length.
var light = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`make makes made making again do does did done take takes took come comes go goes
	went use using able allowed supposed happen happens happened happening ever also every always usually
	volver vuelvo otra vez puedo puede podemos pueden debo debe deben siempre tambien
	usar uso pasa pasar`) {
		m[w] = true
	}
	return m
}()

// lightWeight is how much a light word counts against a word of the same length.
const lightWeight = 0.35

// numberWords are the number words people write for small quantities, in English and Spanish.
var numberWords = func() map[string]string {
	m := map[string]string{}
	for i, w := range strings.Fields("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty") {
		m[w] = strconv.Itoa(i)
	}
	for i, w := range strings.Fields("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve veinte") {
		m[w] = strconv.Itoa(i)
	}
	m["una"], m["thirty"], m["treinta"] = "1", "30", "30"
	// Ordinals, unaccented as ContentTokens leaves them, with the Spanish feminine and
	// shortened forms ("primera semana", "tercer día"). "cuarto" is also a room and "second"
	// a second: both read as the number, which a question about a room or seconds rarely minds.
	for n, forms := range map[string]string{
		"1": "first primero primera primer", "2": "second segundo segunda", "3": "third tercero tercera tercer",
		"4": "fourth cuarto cuarta", "5": "fifth quinto quinta", "6": "sixth sexto sexta",
		"7": "seventh septimo septima setimo setima", "8": "eighth octavo octava", "9": "ninth noveno novena",
		"10": "tenth decimo decima", "20": "twentieth vigesimo vigesima", "30": "thirtieth trigesimo trigesima",
	} {
		for _, w := range strings.Fields(forms) {
			m[w] = n
		}
	}
	return m
}()

func numberWord(tok string) string {
	if d, ok := numberWords[tok]; ok {
		return d
	}
	return tok
}

// stemsOf returns the stems of text's answer tokens (see answerTokens) in lang, in order.
func stemsOf(text, lang string) []string {
	toks := answerTokens(text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = stemToken(t, lang)
	}
	return out
}

// stemBag is the set of stems of a text.
type stemBag map[string]bool

// hasAll reports whether the bag holds every stem (false for none).
func (b stemBag) hasAll(stems []string) bool {
	for _, st := range stems {
		if !b[st] {
			return false
		}
	}
	return len(stems) > 0
}

func bagOf(text, lang string) stemBag {
	b := stemBag{}
	for _, s := range stemsOf(text, lang) {
		b[s] = true
	}
	return b
}

// textLang is the language to stem a source's text in: the document's language, or the
// question's when the document's is unknown ("simple": tables, codes).
func textLang(docLang, questionLang string) string {
	if docLang == "es" || docLang == "en" {
		return docLang
	}
	return questionLang
}
