package chunk

import (
	"strings"

	"github.com/citahq/cita/sync/extract"
)

// tableLayout is a table with its cells cleaned (whitespace collapsed, "|" escaped) and its rows
// rendered as lines, ready to be packed.
type tableLayout struct {
	header  []string
	rows    [][]string
	records bool
	head    string   // lines repeated at the top of every piece: the Markdown header and separator
	lines   []string // one rendered line per non-empty row
}

func newTableLayout(t *extract.Table, records bool) tableLayout {
	l := tableLayout{header: cleanCells(t.Header), records: records}
	width := len(l.header)
	for _, row := range t.Rows {
		cells := cleanCells(row)
		if allEmpty(cells) {
			continue
		}
		l.rows = append(l.rows, cells)
		width = max(width, len(cells))
	}
	if records {
		for _, cells := range l.rows {
			l.lines = append(l.lines, strings.Join(l.fields(cells), " | "))
		}
		if len(l.rows) == 0 {
			l.head = strings.Join(nonEmpty(l.header), " | ")
		}
		return l
	}
	if !allEmpty(l.header) {
		seps := make([]string, width)
		for i := range seps {
			seps[i] = "---"
		}
		l.head = markdownRow(l.header, width) + "\n" + markdownRow(seps, width)
	}
	for _, cells := range l.rows {
		l.lines = append(l.lines, markdownRow(cells, width))
	}
	return l
}

// render returns the whole table as one text.
func (l tableLayout) render() string {
	var b strings.Builder
	b.WriteString(l.head)
	for _, line := range l.lines {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}

// fields returns a row's non-empty cells as "header: value" (just "value" when the column has no
// header name).
func (l tableLayout) fields(cells []string) []string {
	var out []string
	for i, v := range cells {
		if v == "" {
			continue
		}
		out = append(out, l.label(i)+v)
	}
	return out
}

func (l tableLayout) label(col int) string {
	if col < len(l.header) && l.header[col] != "" {
		return l.header[col] + ": "
	}
	return ""
}

// tableParts splits a table too large for one chunk by rows. Every part repeats the header
// (Markdown tables repeat the header and separator lines; record rows carry their header names).
// A row too large for a chunk on its own is cut between its fields, and a giant field between
// sentences, words or runes, each part keeping the field's header name.
func tableParts(t *extract.Table, l tableLayout, target, budget int) []string {
	if !l.records && CountTokens(l.head) > budget/2 {
		l = newTableLayout(t, true) // a header this wide cannot be repeated: label every value instead
	}
	if len(l.lines) == 0 {
		return fragmentTexts(splitText(l.head, target, false))
	}
	headTokens := CountTokens(l.head)
	var parts []string
	var b strings.Builder
	rows, tokens := 0, 0
	flush := func() {
		if rows > 0 {
			parts = append(parts, b.String())
		}
		b.Reset()
		b.WriteString(l.head)
		rows, tokens = 0, headTokens
	}
	flush()
	for i, line := range l.lines {
		lineTokens := CountTokens(line)
		if headTokens+lineTokens > budget {
			flush()
			parts = append(parts, l.rowParts(l.rows[i], target)...)
			continue
		}
		if rows > 0 && tokens+lineTokens > target {
			flush()
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		tokens += lineTokens
		rows++
	}
	flush()
	return parts
}

// rowParts cuts one oversized row into parts of at most target tokens, between its
// "header: value" fields where possible.
func (l tableLayout) rowParts(cells []string, target int) []string {
	var parts []string
	var b strings.Builder
	tokens := 0
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, b.String())
		}
		b.Reset()
		tokens = 0
	}
	for i, v := range cells {
		if v == "" {
			continue
		}
		label := l.label(i)
		fieldTokens := CountTokens(label + v)
		if fieldTokens > target {
			flush()
			labelTokens := CountTokens(label)
			if labelTokens > target/4 {
				label, labelTokens = "", 0
			}
			for _, f := range splitText(v, target-labelTokens, false) {
				parts = append(parts, label+f.text)
			}
			continue
		}
		if b.Len() > 0 && tokens+1+fieldTokens > target {
			flush()
		}
		if b.Len() > 0 {
			b.WriteString(" | ")
			tokens++
		}
		b.WriteString(label + v)
		tokens += fieldTokens
	}
	flush()
	return parts
}

func markdownRow(cells []string, width int) string {
	var b strings.Builder
	b.WriteString("|")
	for i := range width {
		b.WriteString(" ")
		if i < len(cells) {
			b.WriteString(cells[i])
		}
		b.WriteString(" |")
	}
	return b.String()
}

// cleanCells collapses whitespace inside each cell (so a row stays on one line) and escapes "|".
func cleanCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		if isClean(c) {
			out[i] = c
			continue
		}
		out[i] = strings.ReplaceAll(strings.Join(strings.Fields(c), " "), "|", `\|`)
	}
	return out
}

// isClean reports whether cleanCells would leave c unchanged: ASCII, no "|", single inner spaces.
func isClean(c string) bool {
	for i := 0; i < len(c); i++ {
		switch b := c[i]; {
		case b >= 0x80 || b == '|' || b != ' ' && isASCIISpace(b):
			return false
		case b == ' ' && (i == 0 || i == len(c)-1 || c[i+1] == ' '):
			return false
		}
	}
	return true
}

func allEmpty(ss []string) bool {
	for _, s := range ss {
		if s != "" {
			return false
		}
	}
	return true
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func fragmentTexts(fs []fragment) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.text
	}
	return out
}
