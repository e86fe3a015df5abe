package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// sharedOfficeDir returns $CITA_SHARED_DIR/fixtures/office or skips the test.
func sharedOfficeDir(t testing.TB) string {
	t.Helper()
	shared := os.Getenv("CITA_SHARED_DIR")
	if shared == "" {
		t.Skip("CITA_SHARED_DIR is unset: skipping the tests over real office files (CI sets it)")
	}
	return filepath.Join(shared, "fixtures", "office")
}

// TestSharedOfficeFiles extracts the real-world files from public test suites. Every one
// extracts or fails with its typed error, and the text a reader sees is checked.
func TestSharedOfficeFiles(t *testing.T) {
	t.Parallel()
	dir := sharedOfficeDir(t)
	tests := []struct {
		file      string
		wantErr   error
		wantTitle string
		want      []string // fragments of the dump
		unwanted  []string
		check     func(t *testing.T, doc *Document)
	}{
		{file: "002-trivial-libre-office-writer.odt", want: []string{"P: Lorem ipsum dolor sit amet, consetetur sadipscing elitr,"}},
		{file: "002-trivial-libre-office-writer.pdf", want: []string{"[p. 1]\nP: Lorem ipsum dolor sit amet, consetetur sadipscing elitr,"}},
		{file: "google-doc-document.pdf", wantTitle: "PDF Example Document", want: []string{"Beautiful is better than ugly.", "EUR (€)"}},
		{file: "libre-office-link.pdf", want: []string{"P: This is a link to an awesome blog."}},
		{file: "pdfkit.pdf", want: []string{"Foo: bar"}},
		{
			// pdfTeX: word spaces and the "fi" ligature must survive, one section per page.
			file: "pdflatex-4-pages.pdf",
			want: []string{"Hello, here is some text without a meaning.", "you will get no information", "[p. 4]"},
			check: func(t *testing.T, doc *Document) {
				if len(doc.Sections) != 4 {
					t.Errorf("sections = %d, want one per page (4)", len(doc.Sections))
				}
			},
		},
		{
			// Two columns: a sentence that runs down the left column reads whole, so the right
			// column's lines are not interleaved; hyphenated words are joined.
			file: "multicolumn.pdf",
			want: []string{
				"Ut purus elit, vestibulum ut, placerat ac, adipiscing vitae, felis. Curabitur dictum gravida mauris. Nam arcu libero, nonummy eget, consectetuer id, vulputate a, magna.",
				"Lorem ipsum dolor sit amet, consectetuer adipiscing elit.",
			},
			unwanted: []string{"adip-iscing", "adip iscing", "\uFFFD"},
		},
		{file: "Book1.xlsx", want: []string{"== Sheet2 [sheet Sheet2]", "R: 20-23 Inch | 24 | DELL | 450"}},
		{file: "MergeCell.xlsx", want: []string{"R: A7 | A7 | A7 | D8"}},
		{file: "SharedStrings.xlsx", want: []string{"H: Test Weight (Kgs)"}},
		{file: "blk-paras-and-tables.docx", want: []string{"P: Lorem ipsum dolor sit amet, consectetur adipiscing elit.\nTABLE", "P: Donec semper facilisis metus finibus malesuada."}},
		{file: "hdr-header-footer.docx", want: []string{"P: section with header\nP: section without header of its own."}},
		{file: "num-having-numbering-part.docx", want: []string{"L0: 1. Paragraph having List Number style."}},
		{file: "par-hyperlinks.docx", want: []string{"P: Three hyperlinks: the first one here, the second one, and the third."}},
		{file: "test.docx", wantTitle: "python-docx was here!", want: []string{"P: python-docx was here too!"}},
		{file: "tbl-having-tables.docx"}, // tables of empty cells: nothing to index, no error
		{file: "prs-notes.pptx", want: []string{"[slide 1]\nP: Notes: Notes"}},
		{file: "ph-populated-placeholders.pptx", want: []string{"[slide 6]\nL0: Content"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			doc, err := Extract(context.Background(), tt.file, readFixture(t, dir, tt.file), DefaultLimits())
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, doc)
			if tt.wantTitle != "" && doc.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", doc.Title, tt.wantTitle)
			}
			checkDump(t, dumpDocument(doc), tt.want, tt.unwanted)
			if tt.check != nil {
				tt.check(t, doc)
			}
		})
	}
}

// TestSharedPasswordPDF: the password-protected sample must fail with ErrEncrypted. The copy in
// the shared folder may be an empty file (a failed download); then it must fail as ErrCorrupt.
func TestSharedPasswordPDF(t *testing.T) {
	t.Parallel()
	const name = "005-libreoffice-writer-password.pdf"
	data := readFixture(t, sharedOfficeDir(t), name)
	want := ErrEncrypted
	if len(data) == 0 {
		t.Logf("%s is empty in this shared folder: expecting ErrCorrupt instead of ErrEncrypted", name)
		want = ErrCorrupt
	}
	_, err := Extract(context.Background(), name, data, DefaultLimits())
	checkFileError(t, err, want, name, "")
}
