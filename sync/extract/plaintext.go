package extract

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// extractPlainText splits text into paragraphs on blank lines. A short first line that reads like
// a title (or is underlined with === or ---) becomes the title and leaves the body.
func extractPlainText(ctx context.Context, name string, data []byte, _ Limits) (*Document, error) {
	src, err := decodeText(ctx, name, data)
	if err != nil {
		return nil, err
	}
	paragraphs := splitParagraphs(src)
	title := ""
	if len(paragraphs) > 0 {
		if t, ok := titleLine(paragraphs[0]); ok {
			title = t
			paragraphs = paragraphs[1:]
		}
	}
	b := newSectionBuilder(title)
	for _, p := range paragraphs {
		b.paragraph(p)
	}
	return &Document{Title: title, Sections: b.sections}, nil
}

// splitParagraphs cuts text at blank lines (lines of only whitespace count as blank).
func splitParagraphs(src string) []string {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	var paragraphs []string
	var current []string
	for _, line := range strings.Split(src, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(current) > 0 {
				paragraphs = append(paragraphs, strings.Join(current, "\n"))
				current = current[:0]
			}
			continue
		}
		current = append(current, line)
	}
	if len(current) > 0 {
		paragraphs = append(paragraphs, strings.Join(current, "\n"))
	}
	return paragraphs
}

// titleLine reports whether a first paragraph is a title: one line of at most 100 characters that
// does not end like a sentence, or a line underlined with '=' or '-'.
func titleLine(paragraph string) (string, bool) {
	lines := strings.Split(paragraph, "\n")
	if len(lines) == 2 && isUnderline(lines[1]) {
		lines = lines[:1]
	}
	if len(lines) != 1 {
		return "", false
	}
	line := cleanInline(lines[0])
	if line == "" || utf8.RuneCountInString(line) > 100 || !strings.ContainsFunc(line, unicode.IsLetter) {
		return "", false
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	if strings.ContainsRune(".,;:", last) {
		return "", false
	}
	return line, true
}

func isUnderline(line string) bool {
	line = strings.TrimSpace(line)
	return len(line) >= 3 && (strings.Trim(line, "=") == "" || strings.Trim(line, "-") == "")
}
