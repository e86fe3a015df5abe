package lang

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold lower-cases text and removes its accents ("Vacación" → "vacacion"), as the index's
// unaccent does; everything else, punctuation included, stays. It is the one accent fold the
// composer, the translator's dictionaries and the evaluation match text with.
func Fold(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range norm.NFD.String(text) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
