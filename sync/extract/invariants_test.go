package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkInvariants asserts what the chunker relies on for any input: a title, no empty sections,
// no empty or untrimmed text blocks, valid UTF-8 everywhere, tables with a header, and records
// tables whose rows never have more cells than the header names.
func checkInvariants(t *testing.T, doc *Document) {
	t.Helper()
	if doc == nil {
		t.Fatal("nil document without error")
	}
	if doc.Title == "" || !utf8.ValidString(doc.Title) {
		t.Errorf("bad title %q", doc.Title)
	}
	for si, s := range doc.Sections {
		if len(s.Blocks) == 0 {
			t.Errorf("section %d %v has no blocks", si, s.Path)
		}
		for _, p := range s.Path {
			if p == "" || !utf8.ValidString(p) || strings.ContainsAny(p, "\n") {
				t.Errorf("section %d: bad path element %q", si, p)
			}
		}
		for bi, b := range s.Blocks {
			switch b.Kind {
			case Paragraph, ListItem, Code:
				if strings.TrimSpace(b.Text) == "" || !utf8.ValidString(b.Text) {
					t.Errorf("section %d block %d: bad text %q", si, bi, b.Text)
				}
				if b.Kind != Code && b.Text != strings.TrimSpace(b.Text) {
					t.Errorf("section %d block %d: untrimmed text %q", si, bi, b.Text)
				}
				if b.Level < 0 {
					t.Errorf("section %d block %d: negative level", si, bi)
				}
			case TableBlock:
				if b.Table == nil {
					t.Fatalf("section %d block %d: table block without table", si, bi)
				}
				if len(b.Table.Header) == 0 && len(b.Table.Rows) == 0 {
					t.Errorf("section %d block %d: empty table", si, bi)
				}
				for _, cell := range b.Table.Header {
					if !utf8.ValidString(cell) {
						t.Errorf("section %d block %d: invalid UTF-8 in header", si, bi)
					}
				}
				for _, row := range b.Table.Rows {
					if b.Table.RowsAsRecords && len(row) > len(b.Table.Header) {
						t.Errorf("section %d block %d: row %v longer than header %v", si, bi, row, b.Table.Header)
					}
					for _, cell := range row {
						if !utf8.ValidString(cell) {
							t.Errorf("section %d block %d: invalid UTF-8 in cell", si, bi)
						}
					}
				}
			default:
				t.Errorf("section %d block %d: unknown kind %d", si, bi, b.Kind)
			}
		}
	}
}
