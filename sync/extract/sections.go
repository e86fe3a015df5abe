package extract

import (
	"slices"
	"strings"
)

// sectionBuilder turns a stream of headings and blocks into Sections with heading paths. It is
// shared by the formats whose structure comes from headings (Markdown, HTML, DOCX, ODT).
type sectionBuilder struct {
	// knownTitle is the title from the document's metadata; empty when there is none.
	knownTitle string
	// title is knownTitle, or the first level-1 heading when there is no knownTitle.
	title    string
	stack    []headingEntry
	seenH1   bool
	sections []Section
	// locator is copied into every section started from now on.
	locator string
}

type headingEntry struct {
	level int
	text  string
}

func newSectionBuilder(knownTitle string) *sectionBuilder {
	knownTitle = cleanInline(knownTitle)
	return &sectionBuilder{knownTitle: knownTitle, title: knownTitle}
}

// heading starts a new section. The first level-1 heading becomes the title when there is no
// known title, and is left out of the path when it is (or repeats) the title.
func (b *sectionBuilder) heading(level int, text string) {
	text = cleanInline(text)
	if text == "" {
		return
	}
	for len(b.stack) > 0 && b.stack[len(b.stack)-1].level >= level {
		b.stack = b.stack[:len(b.stack)-1]
	}
	isTitle := false
	if level == 1 && !b.seenH1 {
		b.seenH1 = true
		switch {
		case b.knownTitle == "":
			b.title = text
			isTitle = true
		case strings.EqualFold(b.knownTitle, text):
			isTitle = true
		}
	}
	if !isTitle {
		b.stack = append(b.stack, headingEntry{level: level, text: text})
	}
	b.startSection()
}

// startSection begins a new section at the current heading path (used for pages and slides too).
// An empty last section is reused, and one with the same path and locator simply continues.
func (b *sectionBuilder) startSection() {
	path := make([]string, len(b.stack))
	for i, h := range b.stack {
		path[i] = h.text
	}
	if n := len(b.sections); n > 0 {
		last := &b.sections[n-1]
		if len(last.Blocks) == 0 {
			last.Path, last.Locator = path, b.locator
			return
		}
		if last.Locator == b.locator && slices.Equal(last.Path, path) {
			return
		}
	}
	b.sections = append(b.sections, Section{Path: path, Locator: b.locator})
}

// resetPath forgets the heading stack (a new page, slide or sheet starts from the top).
func (b *sectionBuilder) resetPath() { b.stack = b.stack[:0] }

func (b *sectionBuilder) add(block Block) {
	switch block.Kind {
	case TableBlock:
		if block.Table == nil || tableIsBlank(block.Table) {
			return
		}
	case Code:
		block.Text = strings.TrimRight(block.Text, " \t\r\n")
		if strings.TrimSpace(block.Text) == "" {
			return
		}
	default:
		block.Text = cleanBlockText(block.Text)
		if block.Text == "" {
			return
		}
	}
	if len(b.sections) == 0 {
		b.startSection()
	}
	s := &b.sections[len(b.sections)-1]
	s.Blocks = append(s.Blocks, block)
}

func (b *sectionBuilder) paragraph(text string) { b.add(Block{Kind: Paragraph, Text: text}) }

func (b *sectionBuilder) listItem(level int, text string) {
	b.add(Block{Kind: ListItem, Level: level, Text: text})
}

// setTitle makes text the title unless one is known; it reports whether it did.
func (b *sectionBuilder) setTitle(text string) bool {
	text = cleanInline(text)
	if b.title != "" || text == "" {
		return false
	}
	b.title = text
	b.seenH1 = true
	return true
}

func tableIsBlank(t *Table) bool {
	if !isBlankRow(t.Header) {
		return false
	}
	for _, row := range t.Rows {
		if !isBlankRow(row) {
			return false
		}
	}
	return true
}

// cleanInline collapses all whitespace (newlines too) into single spaces.
func cleanInline(s string) string { return strings.Join(strings.Fields(s), " ") }

// cleanBlockText collapses runs of spaces inside each line, keeps single line breaks and drops
// blank lines, so hard line breaks survive but layout whitespace does not.
func cleanBlockText(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, line := range lines {
		if line = cleanInline(line); line != "" {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
