package chunk

import (
	"unicode"
	"unicode/utf8"
)

// runeRunPerToken is how many letters or digits of one word make one approximate token. Subword
// tokenizers (BPE, WordPiece) split English and Spanish words into roughly one token per four
// characters; short function words stay one token.
const runeRunPerToken = 4

// CountTokens returns a fast, deterministic approximation of the number of model tokens in s.
//
// The rule: each run of letters, digits and combining marks counts one token per started
// runeRunPerToken runes ("de" = 1, "vacaciones" = 3); every punctuation mark, symbol, control
// character or invalid byte counts one token; every Han, Hiragana, Katakana or Hangul character counts
// one token; whitespace counts nothing. Compared with real BPE tokenizers it errs slightly high on
// prose and on tables (every "|" counts), which is the safe side for a hard cap.
//
// Two properties the chunker relies on: the count never decreases when text is appended, and
// CountTokens(a + ws + b) == CountTokens(a) + CountTokens(b) for any whitespace ws, so counts of
// pieces joined by whitespace add up. It never fails.
func CountTokens(s string) int {
	tokens, run := 0, 0
	for i := 0; i < len(s); {
		b := s[i]
		if b >= utf8.RuneSelf {
			c := tokenCounter{tokens: tokens, run: run}
			r, size := utf8.DecodeRuneInString(s[i:])
			c.add(r)
			tokens, run = c.tokens, c.run
			i += size
			continue
		}
		switch asciiClass[b] {
		case classWord:
			if run%runeRunPerToken == 0 {
				tokens++
			}
			run++
		case classSpace:
			run = 0
		default:
			tokens++
			run = 0
		}
		i++
	}
	return tokens
}

const (
	classPunct = iota
	classWord
	classSpace
)

// asciiClass sorts ASCII bytes for CountTokens' fast path.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
			t[b] = classWord
		case isASCIISpace(byte(b)):
			t[b] = classSpace
		}
	}
	return t
}()

// tokenCounter counts tokens incrementally, rune by rune, with the rule CountTokens documents.
type tokenCounter struct {
	tokens int
	run    int // letters, digits and marks in the current word so far
}

func (c *tokenCounter) add(r rune) {
	if r < utf8.RuneSelf {
		c.addASCII(byte(r))
		return
	}
	switch {
	case unicode.IsSpace(r):
		c.run = 0
	case isIdeographic(r):
		c.tokens++
		c.run = 0
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		c.addWordRune()
	default:
		c.tokens++
		c.run = 0
	}
}

func (c *tokenCounter) addASCII(b byte) {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		c.addWordRune()
	case isASCIISpace(b):
		c.run = 0
	default:
		c.tokens++
		c.run = 0
	}
}

func (c *tokenCounter) addWordRune() {
	if c.run%runeRunPerToken == 0 {
		c.tokens++
	}
	c.run++
}

func isIdeographic(r rune) bool {
	return r >= 0x1100 && // below Hangul Jamo: none of these scripts
		unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func isASCIISpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// prefixEnd returns the length in bytes of the longest prefix of s, ending on a rune boundary,
// whose CountTokens is at most limit. It returns len(s) when the whole of s fits.
func prefixEnd(s string, limit int) int {
	var c tokenCounter
	for i, r := range s {
		next := c
		next.add(r)
		if next.tokens > limit {
			return i
		}
		c = next
	}
	return len(s)
}
