package handbookset

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Body returns a document's text without a leading YAML front matter block ("---" lines), which
// is metadata the answerer never quotes. Text without a closed block is returned whole.
func Body(text string) string {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return text
	}
	for {
		line, after, more := strings.Cut(rest, "\n")
		if l := strings.TrimRight(line, " \t\r"); l == "---" || l == "..." {
			return after
		}
		if !more {
			return text
		}
		rest = after
	}
}

// ContainsFold reports whether s contains sub, ignoring case (accents and punctuation count).
func ContainsFold(s, sub string) bool {
	return strings.Contains(fold(s), fold(sub))
}

// ContainsWordFold reports whether s contains phrase, ignoring case, as whole words: "pet" is
// not found in "competitive", "parking" is found in "parking fines".
func ContainsWordFold(s, phrase string) bool {
	s, phrase = fold(s), fold(phrase)
	if phrase == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		from = start + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// fold puts text in one Unicode form (NFC) and lower case, so "Días" typed on one keyboard
// matches "Días" saved by another.
func fold(s string) string { return strings.ToLower(norm.NFC.String(s)) }
