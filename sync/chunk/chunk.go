// Package chunk turns an extracted document into pieces sized for embedding and retrieval: structure
// first (a piece never mixes two sections), then size (blocks packed up to a target, never above a
// hard cap), with a small overlap between neighbouring prose pieces and header rows repeated in every
// piece of a split table.
package chunk

import (
	"math"
	"strings"

	"github.com/citahq/cita/sync/extract"
)

// Defaults applied to zero Options fields.
const (
	DefaultTargetTokens = 300
	DefaultMaxTokens    = 450
	DefaultOverlapRatio = 0.12
)

// maxListLevel caps list indentation so a malformed nesting depth cannot blow up a chunk.
const maxListLevel = 8

// Options sizes the pieces. Zero fields take the defaults.
type Options struct {
	TargetTokens int // pieces are packed up to this many tokens; default 300, at most MaxTokens
	// MaxTokens is the hard cap on Heading+Content; default 450. No piece ever exceeds it: an
	// oversized paragraph, list item, code block or table cell is cut on sentence, then word, then
	// rune boundaries.
	MaxTokens int
	// OverlapRatio is the share of a piece's tail repeated at the start of the next piece of the same
	// section; default 0.12 (the tail lands within 10-15%). Negative disables overlap; capped at 0.4.
	OverlapRatio float64
}

func (o Options) withDefaults() Options {
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.TargetTokens <= 0 {
		o.TargetTokens = DefaultTargetTokens
	}
	o.TargetTokens = min(o.TargetTokens, o.MaxTokens)
	switch {
	case o.OverlapRatio == 0:
		o.OverlapRatio = DefaultOverlapRatio
	case o.OverlapRatio < 0 || math.IsNaN(o.OverlapRatio):
		o.OverlapRatio = 0
	case o.OverlapRatio > 0.4:
		o.OverlapRatio = 0.4
	}
	return o
}

// Piece is one chunk of a document, ready to become a rag.Chunk.
type Piece struct {
	Heading string // breadcrumb "Title > Section > Subsection"; just the title for the preamble
	Section string // "Section > Subsection"; empty for the preamble
	Locator string // copied from the section: "p. 4", "sheet 2026"
	Content string // the text, without the breadcrumb
	// Tokens is CountTokens(Heading) + CountTokens(Content), which equals the count of
	// Heading + "\n\n" + Content (rag.Chunk.Text); always <= MaxTokens.
	Tokens int
}

// Split cuts doc into pieces, section by section, in document order. The output depends only on doc
// and opts. A nil or empty document gives no pieces; Split never fails.
func Split(doc *extract.Document, opts Options) []Piece {
	if doc == nil {
		return nil
	}
	o := opts.withDefaults()
	title := cleanLine(doc.Title)
	var pieces []Piece
	for i := range doc.Sections {
		pieces = appendSection(pieces, title, &doc.Sections[i], o)
	}
	return pieces
}

func appendSection(pieces []Piece, title string, sec *extract.Section, o Options) []Piece {
	var path []string
	for _, p := range sec.Path {
		if p = cleanLine(p); p != "" {
			path = append(path, p)
		}
	}
	heading := fitTokens(strings.Join(nonEmpty(append([]string{title}, path...)), " > "), o.MaxTokens/4)
	headTokens := CountTokens(heading)
	budget := o.MaxTokens - headTokens
	target := max(1, min(o.TargetTokens-headTokens, budget))

	segs := sectionSegments(sec.Blocks, target, budget)
	if len(segs) == 0 {
		return pieces
	}
	p := packer{target: target, budget: budget, ratio: o.OverlapRatio}
	if fitsWhole(segs, budget) {
		p.target = budget // a small section stays one piece
	}
	for _, s := range segs {
		p.add(s)
	}
	p.flush()
	section := strings.Join(path, " > ")
	for _, content := range p.out {
		pieces = append(pieces, Piece{
			Heading: heading,
			Section: section,
			Locator: sec.Locator,
			Content: content,
			Tokens:  headTokens + CountTokens(content),
		})
	}
	return pieces
}

func fitsWhole(segs []segment, budget int) bool {
	total := 0
	for _, s := range segs {
		if s.standalone {
			return false
		}
		total += s.tokens
	}
	return total <= budget
}

// fitTokens returns s, or when it counts more than limit tokens, its longest prefix that fits with
// an ellipsis appended.
func fitTokens(s string, limit int) string {
	if CountTokens(s) <= limit {
		return s
	}
	if limit < 2 {
		return ""
	}
	return strings.TrimSpace(s[:prefixEnd(s, limit-1)]) + "…"
}

// cleanLine collapses all whitespace, newlines included, to single spaces.
func cleanLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
