package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pdfParagraphs turns a page's text (lines ending in CRLF, no paragraph marks) into paragraphs:
// a blank line ends one, and so does a line that ends a sentence while being clearly shorter than
// the page's usual line. Words hyphenated across lines are joined.
func pdfParagraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	// pdfium writes U+0002 where a word was hyphenated across lines: join its halves.
	text = strings.ReplaceAll(text, "\u0002", "")
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		lines = append(lines, strings.TrimSpace(line))
	}
	usual := usualLineLength(lines)
	var paragraphs []string
	var current strings.Builder
	flush := func() {
		if p := cleanInline(current.String()); p != "" {
			paragraphs = append(paragraphs, p)
		}
		current.Reset()
	}
	for i, line := range lines {
		if line == "" {
			flush()
			continue
		}
		joined := current.String()
		switch {
		case joined == "":
		case strings.HasSuffix(joined, "-") && len(joined) > 1 && isLetterByte(joined[len(joined)-2]):
			// "inter-" + "national": drop the hyphen, no space.
			current.Reset()
			current.WriteString(joined[:len(joined)-1])
		default:
			current.WriteByte(' ')
		}
		current.WriteString(line)
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if endsParagraph(line, next, usual) {
			flush()
		}
	}
	flush()
	return paragraphs
}

// endsParagraph: a line clearly shorter than a full one ends its paragraph when it ends a
// sentence, or when it is very short (a heading, a list item) and the next line starts anew
// with a capital, a digit or a bullet.
func endsParagraph(line, next string, usual int) bool {
	if usual == 0 {
		return false
	}
	length := len([]rune(line))
	if length*10 >= usual*8 {
		return false
	}
	last := line[len(line)-1]
	if last == '.' || last == ':' || last == '!' || last == '?' {
		return true
	}
	if length*10 >= usual*6 || next == "" || last == ',' || last == '-' {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	return unicode.IsUpper(first) || unicode.IsDigit(first) || strings.ContainsRune("-•–·*", first)
}

// usualLineLength is the 75th percentile of line lengths in runes: the width of a full line.
func usualLineLength(lines []string) int {
	var lengths []int
	for _, l := range lines {
		if n := len([]rune(l)); n > 0 {
			lengths = append(lengths, n)
		}
	}
	if len(lengths) < 3 {
		return 0
	}
	for i := 1; i < len(lengths); i++ {
		for j := i; j > 0 && lengths[j] < lengths[j-1]; j-- {
			lengths[j], lengths[j-1] = lengths[j-1], lengths[j]
		}
	}
	return lengths[len(lengths)*3/4]
}

func isLetterByte(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80
}
