package rag

import (
	"regexp"
	"strings"
	"unicode"
)

// unitKind says what shape of text an answer unit is.
type unitKind int

const (
	unitSentence unitKind = iota // a sentence of prose
	unitItem                     // a list item
	unitRow                      // a table row, as "Header: value; Header: value"
	unitLead                     // a sentence ending in ":" followed by list items it introduces
)

func (k unitKind) String() string {
	return [...]string{"sentence", "list item", "table row", "lead sentence"}[k]
}

// answerUnit is a piece of a source an extractive answer may quote.
type answerUnit struct {
	text string   // what is quoted: list markers stripped, table rows with their headers
	kind unitKind // its shape
	// implicit marks a list that no lead sentence introduces (steps under a "Steps" heading):
	// its text is empty, and it is quoted under its section's name.
	implicit bool
	items    []listItem // a lead sentence's list items
	cells    []string   // a table row's values
	headers  []string   // their column headers ("" where the column has none), when the table has a header row
	// context is the text a unit answers under but does not say itself: the FAQ question or
	// the lead sentence just before it.
	context string
	// prev is the sentence before, in the same paragraph ("The team will mail it." follows the
	// sentence that says what "it" is).
	prev  string
	order int // position within the source
	// lead is 1 + the order of the lead sentence (or bare list) an item belongs to; 0 for none.
	lead int
}

// listItem is an item of a lead sentence's list; depth 0 is the lead's own level.
type listItem struct {
	text  string
	depth int
}

// itemTexts returns the texts of a lead's items.
func (u answerUnit) itemTexts() []string {
	out := make([]string, len(u.items))
	for i, it := range u.items {
		out[i] = it.text
	}
	return out
}

// maxLeadItems bounds the list a lead sentence carries into an answer.
const maxLeadItems = 15

var (
	listMarker   = regexp.MustCompile(`^\s*(?:[-*+•]|\d{1,3}[.)]|[a-zA-Z][.)])\s+`)
	shortcode    = regexp.MustCompile(`^\s*(\{\{[<%].*[%>]\}\}|<!--.*-->)\s*$`)
	boldQuestion = regexp.MustCompile(`^\*\*([^*]+\?)\*\*\s*(.*)$`)
	linkOnly     = regexp.MustCompile(`^\s*\[[^\]]*\]\([^)]*\)\s*[.:]?\s*$`)
	mdLink       = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
)

// answerUnitsOf splits a chunk's content into quotable units: sentences, list items (a lead
// sentence ending in ":" also carries the items that follow it), and table rows with their
// headers. FAQ question lines are not units: they become the context of the answer after them.
// Hugo shortcodes, comment lines and lines that are only a link are dropped.
func answerUnitsOf(content string) []answerUnit {
	var out []answerUnit
	add := func(u answerUnit) {
		u.text = cleanUnitText(u.text)
		if u.text == "" {
			return
		}
		u.order = len(out)
		out = append(out, u)
	}
	lines := strings.Split(content, "\n")
	var header []string
	lead := -1        // index in out of the lead sentence whose items follow
	faq := ""         // the last FAQ question seen, context for what follows it
	var indents []int // indentations of the lead's item levels, outermost first
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || shortcode.MatchString(line) || linkOnly.MatchString(line):
			if line == "" && lead >= 0 && !nextIsItem(lines, i) {
				lead = -1
			}
			continue
		case strings.HasPrefix(line, "|") && strings.HasSuffix(line, "|"):
			lead = -1
			cells := tableCells(line)
			if strings.Trim(line, "|-: ") == "" {
				continue // the separator row
			}
			if i+1 < len(lines) && isSeparator(lines[i+1]) {
				header = cells
				continue
			}
			add(rowUnit(header, cells, faq))
			continue
		}
		header = nil
		if m := listMarker.FindString(raw); m != "" {
			item := strings.TrimSpace(raw[len(m):])
			indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
			if lead >= 0 && (len(indents) == 0 || indent >= indents[0]) {
				for len(indents) > 0 && indent < indents[len(indents)-1] {
					indents = indents[:len(indents)-1]
				}
				if len(indents) == 0 || indent > indents[len(indents)-1] {
					indents = append(indents, indent)
				}
				if t := cleanUnitText(item); t != "" && len(out[lead].items) < maxLeadItems {
					out[lead].items = append(out[lead].items, listItem{text: t, depth: min(len(indents)-1, 3)})
				}
				add(answerUnit{text: item, kind: unitItem, context: out[lead].text, lead: out[lead].order + 1})
				continue
			}
			lead, indents = -1, nil
			if strings.HasSuffix(item, ":") {
				add(answerUnit{text: item, kind: unitLead, context: faq})
				lead = len(out) - 1
				continue
			}
			if t := cleanUnitText(item); t != "" && !prevIsItem(lines, i) {
				// A list without a lead sentence is a unit of its own too.
				out = append(out, answerUnit{kind: unitLead, implicit: true, context: faq, order: len(out),
					items: []listItem{{text: t}}})
				lead, indents = len(out)-1, []int{indent}
				add(answerUnit{text: item, kind: unitItem, context: faq, lead: out[lead].order + 1})
				continue
			}
			add(answerUnit{text: item, kind: unitItem, context: faq})
			continue
		}
		lead, indents = -1, nil
		if m := boldQuestion.FindStringSubmatch(line); m != nil {
			faq = m[1]
			line = m[2]
			if line == "" {
				continue
			}
		}
		prev := ""
		for _, s := range Sentences(line) {
			if isQuestionLine(s) {
				faq = s
				continue
			}
			if strings.HasSuffix(s, ":") && nextIsItem(lines, i) {
				add(answerUnit{text: s, kind: unitLead, context: faq, prev: prev})
				lead = len(out) - 1
				continue
			}
			add(answerUnit{text: s, kind: unitSentence, context: faq, prev: prev})
			prev = s
		}
	}
	// A lead without items is a plain sentence; a bare list of one item is that item. Orders
	// stay as they were: items refer to their lead by it.
	kept := out[:0]
	for _, u := range out {
		switch {
		case u.implicit && len(u.items) < 2:
			continue
		case u.kind == unitLead && len(u.items) == 0:
			u.kind = unitSentence
		}
		kept = append(kept, u)
	}
	return kept
}

// rowUnit renders a table row as "Header: value; Header: value"; without a matching header row,
// its cells joined by "; ".
func rowUnit(header, cells []string, context string) answerUnit {
	u := answerUnit{kind: unitRow, context: context}
	for j, c := range cells {
		if c != "" {
			u.cells = append(u.cells, c)
			if len(header) == len(cells) {
				u.headers = append(u.headers, header[j])
			}
		}
	}
	if len(header) != len(cells) {
		u.text = strings.Join(u.cells, "; ")
		return u
	}
	parts := make([]string, 0, len(cells))
	for j, c := range cells {
		switch {
		case c == "":
		case header[j] == "":
			parts = append(parts, c) // a row label under an empty header cell
		default:
			parts = append(parts, header[j]+": "+c)
		}
	}
	u.text = strings.Join(parts, "; ")
	return u
}

// prevIsItem reports whether the previous non-blank line before lines[i] is a list item.
func prevIsItem(lines []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if strings.TrimSpace(lines[j]) == "" {
			continue
		}
		return listMarker.MatchString(lines[j])
	}
	return false
}

// nextIsItem reports whether the next non-blank line after lines[i] is a list item.
func nextIsItem(lines []string, i int) bool {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "" {
			continue
		}
		return listMarker.MatchString(lines[j])
	}
	return false
}

// isQuestionLine reports whether s is a question (an FAQ entry), which is never quoted as an
// answer.
func isQuestionLine(s string) bool {
	s = strings.TrimRight(strings.TrimSpace(s), "*_ ")
	return strings.HasSuffix(s, "?")
}

// cleanUnitText strips list markers, Markdown emphasis and link targets, and collapses spaces.
// boldMarkup is Markdown's strong emphasis, dropped from quoted text.
var boldMarkup = strings.NewReplacer("**", "", "__", "")

func cleanUnitText(s string) string {
	s = strings.TrimSpace(s)
	for {
		m := listMarker.FindString(s)
		if m == "" {
			break
		}
		s = strings.TrimSpace(s[len(m):])
	}
	s = mdLink.ReplaceAllString(s, "$1")
	s = boldMarkup.Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return s
}

// Sentences splits text into sentences and lines: table rows and list items stay whole.
func Sentences(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.Trim(line, "|-: ") == "" {
			continue
		}
		// A Markdown table's header row says nothing on its own: skip it (its rows follow).
		if strings.HasPrefix(line, "|") && i+1 < len(lines) && isSeparator(lines[i+1]) {
			continue
		}
		start := 0
		runes := []rune(line)
		for i := 0; i < len(runes); i++ {
			r := runes[i]
			if (r == '.' || r == '?' || r == '!') && i+1 < len(runes) && unicode.IsSpace(runes[i+1]) &&
				i+2 < len(runes) && (unicode.IsUpper(runes[i+2]) || runes[i+2] == '¿' || runes[i+2] == '¡') {
				out = append(out, strings.TrimSpace(string(runes[start:i+1])))
				start = i + 1
			}
		}
		if s := strings.TrimSpace(string(runes[start:])); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func tableCells(line string) []string {
	inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
	cells := strings.Split(inner, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isSeparator(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "|") && strings.Contains(line, "-") && strings.Trim(line, "|-: ") == ""
}
