// Package lang tells Spanish from English text, fast and without a model, so the index can pick the
// full-text search configuration ("spanish", "english" or "simple") for each document.
package lang

import (
	"unicode"
	"unicode/utf8"
)

// Codes Detect returns.
const (
	Spanish = "es"
	English = "en"
	Simple  = "simple"
)

const (
	// maxBytes is how much of the text Detect reads; the start of a document tells its language.
	maxBytes = 4096
	// minEvidence is the score below which a text is too short to tell: about three function words.
	minEvidence = 3
	// minDensity is the share of words that must be evidence; prose runs at 0.3-0.5, while tables of
	// codes and identifiers with a stray "de" or "the" stay below.
	minDensity = 0.2
	// maxMinority is how large the weaker language's score may be, relative to the stronger one's,
	// before the text counts as mixed.
	maxMinority = 0.4
	// maxCodeShare is the share of code symbols among non-space characters above which the text is
	// source code rather than prose. Code symbols: { } ; = < > [ ] _ $ \ ` anywhere, "(" right after
	// a word (a call) and "." between a word and a letter (a member access).
	maxCodeShare = 0.06
)

// Detect returns "es", "en", or "simple" when the text is too short, too mixed or too code-like to
// tell (tables of codes, source code). It reads at most the first 4 KB and never fails.
//
// Evidence: function words found only in one language (de, los, también / the, of, which), Spanish
// letters (ñ, accented vowels: half a point per word), ¿ and ¡ (a point each) and English
// contractions (it's, don't: a point each).
func Detect(text string) string {
	s := scan(truncate(text, maxBytes))
	switch {
	case s.nonSpace > 0 && float64(s.codeSymbols)/float64(s.nonSpace) > maxCodeShare:
		return Simple
	case s.words == 0:
		return Simple
	}
	es, en := s.es, s.en
	strong, weak, lang := es, en, Spanish
	if en > es {
		strong, weak, lang = en, es, English
	}
	switch {
	case strong < minEvidence:
		return Simple
	case strong/float64(s.words) < minDensity:
		return Simple
	case weak > maxMinority*strong:
		return Simple
	}
	return lang
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

type evidence struct {
	es, en      float64
	words       int
	nonSpace    int
	codeSymbols int
}

// scan walks the text once, word by word, lowercasing into a small buffer so map lookups do not
// allocate.
func scan(text string) evidence {
	var ev evidence
	var buf [24]byte
	n := 0              // bytes of the current word in buf; -1 once it overflows
	inWord := false     // inside a word
	accented := false   // the current word has a Spanish letter
	apostrophe := false // the current word has an apostrophe
	endWord := func() {
		if !inWord {
			return
		}
		ev.words++
		if n > 0 {
			w := buf[:n]
			switch functionWords[string(w)] {
			case Spanish:
				ev.es++
			case English:
				ev.en++
			default:
				if apostrophe && isContraction(w) {
					ev.en++
				}
			}
		}
		if accented {
			ev.es += 0.5
		}
		inWord, accented, apostrophe, n = false, false, false, 0
	}
	prevWordRune := false // the rune before this one is a letter or digit
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		if isWordRune(r) || (r == '\'' || r == '’') && inWord && i < len(text) && isWordByteStart(text[i]) {
			if r == '’' {
				r = '\''
			}
			inWord = true
			lower := r
			switch {
			case r == '\'':
				apostrophe = true
			case r >= 'A' && r <= 'Z':
				lower = r + ('a' - 'A')
			case r >= utf8.RuneSelf:
				lower = unicode.ToLower(r)
			}
			if isSpanishLetter(lower) {
				accented = true
			}
			if n >= 0 && n+utf8.RuneLen(lower) <= len(buf) {
				n += utf8.EncodeRune(buf[n:], lower)
			} else {
				n = -1
			}
			ev.nonSpace++
			prevWordRune = true
			continue
		}
		endWord()
		after := prevWordRune
		prevWordRune = false
		switch {
		case unicode.IsSpace(r):
			continue
		case r == '¿' || r == '¡':
			ev.es++
		case isCodeSymbol(r):
			ev.codeSymbols++
		case after && r == '(': // call: len(x)
			ev.codeSymbols++
		case after && r == '.' && i < len(text) && isIdentStart(text[i]): // member: item.value
			ev.codeSymbols++
		}
		ev.nonSpace++
	}
	endWord()
	return ev
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isWordByteStart reports whether b may start a word rune (an ASCII letter or digit, or any
// multi-byte rune, checked later).
func isWordByteStart(b byte) bool {
	return b >= utf8.RuneSelf || isWordRune(rune(b))
}

func isIdentStart(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
}

func isSpanishLetter(r rune) bool {
	switch r {
	case 'ñ', 'á', 'é', 'í', 'ó', 'ú', 'ü':
		return true
	}
	return false
}

func isCodeSymbol(r rune) bool {
	switch r {
	case '{', '}', ';', '=', '<', '>', '[', ']', '_', '$', '\\', '`':
		return true
	}
	return false
}

// Lean returns the language a text leans to when it is too short for Detect: "es" or "en" by
// the same evidence (function words, ¿ ¡, Spanish letters, contractions) without thresholds, or
// "" on a tie. "and in Bogotá?" leans English; "¿y en Madrid?" Spanish.
func Lean(text string) string {
	s := scan(truncate(text, maxBytes))
	switch {
	case s.es > s.en:
		return Spanish
	case s.en > s.es:
		return English
	}
	return ""
}
