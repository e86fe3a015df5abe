package chunk

import (
	"strings"
	"unicode/utf8"
)

// fragment is one piece of a text too long for a chunk.
type fragment struct {
	text string
	// sep is the original text between the previous fragment and this one: the whitespace at the
	// cut, or "" when the cut fell inside a word. Joining fragments with their seps gives back the
	// text.
	sep string
}

// splitText cuts text into fragments of at most limit tokens each. It cuts at the last sentence end
// (or, with lines set, the last line end) that keeps at least half of the allowed prefix, else at the
// last whitespace, else between two runes, so even a text with no spaces is capped.
func splitText(text string, limit int, lines bool) []fragment {
	if limit < 1 {
		limit = 1
	}
	var out []fragment
	sep := ""
	rest := text
	for rest != "" {
		end := prefixEnd(rest, limit)
		if end == len(rest) {
			out = appendFragment(out, rest, sep)
			break
		}
		if end == 0 { // unreachable: one rune is at most one token; guards against a loop without progress
			_, end = utf8.DecodeRuneInString(rest)
		}
		cut, next := chooseCut(rest, end, lines)
		out = appendFragment(out, rest[:cut], sep)
		sep = rest[cut:next]
		rest = rest[next:]
	}
	return out
}

func appendFragment(out []fragment, text, sep string) []fragment {
	if strings.TrimSpace(text) == "" {
		return out
	}
	if len(out) == 0 {
		sep = ""
	}
	return append(out, fragment{text: text, sep: sep})
}

// chooseCut picks where to end a fragment of s that may extend to end (exclusive, end < len(s)).
// It returns the fragment's end and where the next fragment starts; the bytes in between are
// whitespace (or nothing, for a cut inside a word).
func chooseCut(s string, end int, lines bool) (cut, next int) {
	lastWord := -1
	for j := end; j >= 1; j-- {
		if !isASCIISpace(s[j]) || isASCIISpace(s[j-1]) {
			continue
		}
		if lastWord < 0 {
			lastWord = j
		}
		if j < end/2 {
			break // a sentence cut here would leave too short a fragment: take the last word boundary
		}
		if lines && s[j] == '\n' || !lines && (s[j] == '\n' || endsSentence(s[:j])) {
			return j, skipAfterCut(s, j, lines)
		}
	}
	if lastWord > 0 {
		return lastWord, skipAfterCut(s, lastWord, lines)
	}
	return end, end
}

// skipAfterCut returns where the next fragment starts after a cut at whitespace position j. Code
// keeps the indentation of its next line; prose drops the whole whitespace run.
func skipAfterCut(s string, j int, lines bool) int {
	if lines && s[j] == '\n' {
		return j + 1
	}
	k := j
	for k < len(s) && isASCIISpace(s[k]) {
		k++
	}
	return k
}

// endsSentence reports whether s ends with a sentence terminator, possibly followed by closing
// quotes or brackets: `fin.`, `¿sí?`, `dijo "no."`, `(ver anexo).`
func endsSentence(s string) bool {
	for range 3 {
		r, size := utf8.DecodeLastRuneInString(s)
		switch r {
		case '.', '!', '?', '…':
			return true
		case '"', '\'', ')', ']', '»', '”', '’':
			s = s[:len(s)-size]
		default:
			return false
		}
	}
	return false
}
