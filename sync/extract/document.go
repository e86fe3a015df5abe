// Package extract turns files into one structured representation (sections with heading paths,
// paragraphs, list items, tables with header rows) that the chunker consumes without re-parsing
// flattened text.
package extract

import (
	"time"

	"github.com/citahq/cita/rag"
)

// Document is a file's structured content and metadata.
type Document struct {
	Title    string    // from the document's properties, else its first heading, else the file name
	Author   string    // empty when unknown
	Modified time.Time // zero when the format does not say; callers fall back to the file's mtime
	// Validity is when the document says it applies (Markdown front matter, office custom
	// properties); zero when it does not say.
	Validity rag.Validity
	Sections []Section
}

// Section is a run of blocks under one heading path.
type Section struct {
	// Path is the heading breadcrumb below the document title: ["Vacaciones", "Solicitud"].
	// Empty for text before the first heading.
	Path []string
	// Locator names where the section sits in a paged format: "p. 4", "sheet 2026", "slide 3".
	Locator string
	Blocks  []Block
}

// BlockKind tells the chunker how a block may be split and joined.
type BlockKind int

const (
	Paragraph BlockKind = iota
	ListItem
	TableBlock
	Code
)

// Block is one paragraph, list item, code block or table.
type Block struct {
	Kind  BlockKind
	Text  string // for Paragraph, ListItem and Code
	Level int    // list nesting depth (0 = top) for ListItem
	Table *Table // for TableBlock
}

// Table keeps its header row apart so every piece of a split table can repeat it.
type Table struct {
	Header []string
	Rows   [][]string
	// RowsAsRecords renders each row as "header: value | header: value" instead of a Markdown
	// table; CSV files and spreadsheets use it so cells never run together.
	RowsAsRecords bool
}
