package rewrite

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citahq/cita/rag"
)

// word is one word of a turn with the surface features salience is judged by.
type word struct {
	text          string // as written, without a trailing possessive "'s"
	capital       bool   // starts with an upper-case letter
	sentenceStart bool   // first word of the text or of a sentence
	code          bool   // an identifier: letters with digits or '_' ("ERR_4402", "B2B"), or an acronym ("NBA")
	number        bool   // digits only, with separators ("1989", "3,000")
}

// wordPattern matches words, keeping codes ("ERR_4402", "v1.2", "A-Teens") and numbers
// ("3,000", "5.440.000") whole.
var wordPattern = regexp.MustCompile(`[\p{L}\p{N}](?:[\p{L}\p{N}_]|[-.,'’][\p{L}\p{N}])*`)

// splitWords splits text into words, noting which start a sentence.
func splitWords(text string) []word {
	var out []word
	last := 0
	for _, loc := range wordPattern.FindAllStringIndex(text, -1) {
		between := text[last:loc[0]]
		start := len(out) == 0 || strings.ContainsAny(between, ".?!¿¡:;\n\"“(")
		last = loc[1]
		w := text[loc[0]:loc[1]]
		for _, suffix := range []string{"'s", "’s"} {
			w = strings.TrimSuffix(w, suffix)
		}
		out = append(out, describe(w, start))
	}
	return out
}

func describe(w string, sentenceStart bool) word {
	first, _ := utf8.DecodeRuneInString(w)
	var letters, uppers, digits int
	underscore := strings.Contains(w, "_")
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				uppers++
			}
		case unicode.IsDigit(r):
			digits++
		}
	}
	return word{
		text:          w,
		capital:       unicode.IsUpper(first),
		sentenceStart: sentenceStart,
		code:          (letters > 0 && digits > 0) || underscore || (uppers >= 2 && uppers == letters && !stopword(w)),
		number:        letters == 0 && digits > 0,
	}
}

// stopword reports whether w has no content token at all.
func stopword(w string) bool { return len(rag.ContentTokens(w)) == 0 }

// stems returns the rag.TokenStem of every content token of text, for "already said" checks.
func stems(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range rag.ContentTokens(text) {
		m[rag.TokenStem(t)] = true
	}
	return m
}
