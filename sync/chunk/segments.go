package chunk

import (
	"strings"

	"github.com/citahq/cita/sync/extract"
)

// codeFence wraps code blocks so they stay recognisable as code inside a chunk.
const (
	codeFence       = "```"
	codeFenceTokens = 6 // two fences of three backquotes
)

// segment is the unit the packer works with: a whole block, or a fragment of an oversized one.
type segment struct {
	text   string
	tokens int
	sep    string // what goes between this segment and the one before it in the same piece
	// barrier marks a table or code block: the overlap of the next piece never reaches into it.
	barrier bool
	// standalone marks a complete piece of a split table: it is never packed with anything.
	standalone bool
}

// sectionSegments renders a section's blocks into segments of at most budget tokens, splitting
// oversized blocks into fragments of at most target tokens.
func sectionSegments(blocks []extract.Block, target, budget int) []segment {
	var segs []segment
	prevList := false
	for _, b := range blocks {
		sep := "\n\n"
		if b.Kind == extract.ListItem && prevList {
			sep = "\n"
		}
		before := len(segs)
		switch b.Kind {
		case extract.ListItem:
			segs = appendText(segs, renderListItem(b.Text, b.Level), sep, target, budget)
		case extract.Code:
			segs = appendCode(segs, trimCode(b.Text), sep, target, budget)
		case extract.TableBlock:
			segs = appendTable(segs, b.Table, sep, target, budget)
		default:
			segs = appendText(segs, strings.TrimSpace(b.Text), sep, target, budget)
		}
		if len(segs) > before { // empty blocks leave no trace, not even in the list separators
			prevList = b.Kind == extract.ListItem
		}
	}
	return segs
}

func appendText(segs []segment, text, sep string, target, budget int) []segment {
	if strings.TrimSpace(text) == "" {
		return segs
	}
	if n := CountTokens(text); n <= budget {
		return append(segs, segment{text: text, tokens: n, sep: sep})
	}
	for i, f := range splitText(text, target, false) {
		if i > 0 {
			sep = f.sep
		}
		segs = append(segs, segment{text: f.text, tokens: CountTokens(f.text), sep: sep})
	}
	return segs
}

func appendCode(segs []segment, code, sep string, target, budget int) []segment {
	if code == "" {
		return segs
	}
	fenced := fence(code)
	if n := CountTokens(fenced); n <= budget {
		return append(segs, segment{text: fenced, tokens: n, sep: sep, barrier: true})
	}
	limit, wrap := target-codeFenceTokens, fence
	if limit < codeFenceTokens { // too small a chunk to spend on fences
		limit, wrap = target, func(s string) string { return s }
	}
	for i, f := range splitText(code, limit, true) {
		if i > 0 {
			sep = "\n"
		}
		text := wrap(f.text)
		segs = append(segs, segment{text: text, tokens: CountTokens(text), sep: sep, barrier: true})
	}
	return segs
}

func appendTable(segs []segment, t *extract.Table, sep string, target, budget int) []segment {
	if t == nil {
		return segs
	}
	layout := newTableLayout(t, t.RowsAsRecords)
	whole := layout.render()
	if whole == "" {
		return segs
	}
	if n := CountTokens(whole); n <= budget {
		return append(segs, segment{text: whole, tokens: n, sep: sep, barrier: true})
	}
	for _, part := range tableParts(t, layout, target, budget) {
		segs = append(segs, segment{text: part, tokens: CountTokens(part), standalone: true, barrier: true})
	}
	return segs
}

func fence(code string) string { return codeFence + "\n" + code + "\n" + codeFence }

// renderListItem prefixes an item with "- " (unless it already carries a bullet or number) and
// indents it two spaces per nesting level; continuation lines align under the text.
func renderListItem(text string, level int) string {
	level = max(0, min(level, maxListLevel))
	indent := strings.Repeat("  ", level)
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSpace(text)) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(indent)
			if !hasListMarker(line) {
				b.WriteString("- ")
			}
		} else {
			b.WriteString("\n" + indent + "  ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// hasListMarker reports whether line already starts with a bullet ("-", "*", "•") or a number
// ("1.", "2)") followed by a space.
func hasListMarker(line string) bool {
	for _, bullet := range []string{"- ", "* ", "• "} {
		if strings.HasPrefix(line, bullet) {
			return true
		}
	}
	digits := 0
	for digits < len(line) && digits < 4 && line[digits] >= '0' && line[digits] <= '9' {
		digits++
	}
	return digits > 0 && strings.HasPrefix(line[digits:], ". ") || digits > 0 && strings.HasPrefix(line[digits:], ") ")
}

// trimCode drops trailing whitespace and leading blank lines, keeping the first line's indentation.
func trimCode(code string) string {
	code = strings.TrimRight(code, " \t\r\n\v\f")
	first := strings.IndexFunc(code, func(r rune) bool { return !strings.ContainsRune(" \t\r\n\v\f", r) })
	if first < 0 {
		return ""
	}
	return code[strings.LastIndexByte(code[:first], '\n')+1:]
}
