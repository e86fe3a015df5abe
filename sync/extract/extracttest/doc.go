// Package extracttest writes small but real office documents (DOCX, XLSX, PPTX, ODT, ODS, PDF,
// HTML, CSV, Markdown) from one plain description, so tests and benchmarks outside sync/extract
// can feed the extractors files they made themselves. The zip+XML formats and the PDF are written
// by hand with only the parts the extractors and common readers need (the low-level writers are
// shared with internal/fixturegen through internal/docwrite); XLSX goes through excelize.
package extracttest

import (
	"fmt"
	"strings"
)

// Doc describes a document independently of its format.
type Doc struct {
	Title    string
	Author   string
	Sections []Section
}

// Section is one heading with its content. Paged formats give each section its own page, slide or
// sheet, so the N-th section sits on page N, slide N or the sheet named Heading.
type Section struct {
	Heading    string
	Paragraphs []string
	Bullets    []string
	// Table's first row is the header. Each cell is written as its own cell (its own text object in
	// a PDF), never joined to its neighbours by the writer.
	Table [][]string
	Notes string // speaker notes (PPTX only)
}

// Format names a file format by its extension without the dot.
type Format string

// The formats Build writes.
const (
	DOCX     Format = "docx"
	XLSX     Format = "xlsx"
	PPTX     Format = "pptx"
	ODT      Format = "odt"
	ODS      Format = "ods"
	PDF      Format = "pdf"
	HTML     Format = "html"
	CSV      Format = "csv"
	Markdown Format = "md"
)

// Formats lists every format Build writes.
var Formats = []Format{DOCX, XLSX, PPTX, ODT, ODS, PDF, HTML, CSV, Markdown}

// Build writes d in format f. It returns an error for an unknown format or when the writer fails
// (excelize for XLSX, a character outside Windows-1252 for PDF).
func Build(f Format, d Doc) ([]byte, error) {
	switch f {
	case DOCX:
		return BuildDOCX(d)
	case XLSX:
		return BuildXLSX(d)
	case PPTX:
		return BuildPPTX(d)
	case ODT:
		return BuildODT(d)
	case ODS:
		return BuildODS(d)
	case PDF:
		return BuildPDF(d)
	case HTML:
		return []byte(BuildHTML(d)), nil
	case CSV:
		return []byte(BuildCSV(d)), nil
	case Markdown:
		return []byte(BuildMarkdown(d)), nil
	}
	return nil, fmt.Errorf("build %q: unknown format", f)
}

// firstTable returns the first section's table that has rows, or nil.
func (d Doc) firstTable() [][]string {
	for _, s := range d.Sections {
		if len(s.Table) > 0 {
			return s.Table
		}
	}
	return nil
}

// sheetName returns the section's heading cut to Excel's 31 characters without the characters
// Excel forbids, or "Hoja N" when it has none.
func sheetName(s Section, i int) string {
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return -1
		}
		return r
	}, s.Heading)
	if r := []rune(name); len(r) > 31 {
		name = string(r[:31])
	}
	if strings.TrimSpace(name) == "" {
		return fmt.Sprintf("Hoja %d", i+1)
	}
	return name
}
