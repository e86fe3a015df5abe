package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func extractString(t *testing.T, name, src string) *Document {
	t.Helper()
	doc, err := Extract(context.Background(), name, []byte(src), DefaultLimits())
	if err != nil {
		t.Fatalf("Extract(%s): %v", name, err)
	}
	checkInvariants(t, doc)
	return doc
}

// checkFileError fails t unless err wraps want and its message names file and says msg.
func checkFileError(t *testing.T, err, want error, file, msg string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q should name %q and say %q", err, file, msg)
	}
}

func TestExtractErrors(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		file    string
		data    []byte
		limits  Limits
		ctx     context.Context
		wantErr error
		wantMsg string
	}{
		{name: "unknown extension", file: "photo.jpeg", data: []byte("x"), wantErr: ErrUnsupported, wantMsg: `"photo.jpeg"`},
		{name: "no extension", file: "Makefile", data: []byte("x"), wantErr: ErrUnsupported},
		{name: "oversize", file: "big.txt", data: make([]byte, 2048), limits: Limits{MaxFileBytes: 1024}, wantErr: ErrTooLarge, wantMsg: "2048 bytes"},
		{name: "NUL in text", file: "a.txt", data: []byte("hola\x00\x01\x02"), wantErr: ErrCorrupt, wantMsg: "binary"},
		{name: "NUL in markdown", file: "a.md", data: []byte("# T\x00"), wantErr: ErrCorrupt},
		{name: "NUL in csv", file: "a.csv", data: []byte("a,b\x00"), wantErr: ErrCorrupt},
		{name: "NUL in html", file: "a.html", data: []byte("<p>\x00</p>"), wantErr: ErrCorrupt},
		{name: "canceled", file: "a.md", data: []byte("# T"), ctx: canceled, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := Extract(ctx, tt.file, tt.data, tt.limits)
			checkFileError(t, err, tt.wantErr, tt.file, tt.wantMsg)
		})
	}
}

func TestSupported(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"a.md": true, "B.MARKDOWN": true, "c.txt": true, "d.csv": true, "e.TSV": true,
		"f.html": true, "g.htm": true, "h.exe": false, "noext": false, "dir.md/file.bin": false,
	} {
		if got := Supported(name); got != want {
			t.Errorf("Supported(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTitleFromFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"docs/guia_de-vacaciones.md": "guia de vacaciones",
		"Informe 2026.txt":           "Informe 2026",
		".md":                        ".md",
	} {
		if got := titleFromFileName(in); got != want {
			t.Errorf("titleFromFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"utf8", []byte("año"), "año"},
		{"utf8 BOM stripped", []byte("\xef\xbb\xbfaño"), "año"},
		{"latin-1 decoded as windows-1252", []byte("a\xf1o \x80 caf\xe9"), "año € café"},
		{"mostly utf8 repaired", []byte("año, canción, \xff café"), "año, canción, \uFFFD café"},
		{"utf-16 LE with BOM", []byte{0xFF, 0xFE, 'h', 0, 0xF1, 0}, "hñ"},
		{"utf-16 BE with BOM", []byte{0xFE, 0xFF, 0, 'h', 0, 0xF1}, "hñ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeText(context.Background(), "f.txt", tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPlainTextTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, wantTitle string
		wantParagraphs       int
	}{
		{"short first line", "Normas de uso\n\nTexto.", "Normas de uso", 1},
		{"underlined", "Normas\n======\n\nTexto.\n\nMás.", "Normas", 2},
		{"sentence is not a title", "Esto es una frase.\n\nOtra.", "mi archivo", 2},
		{"multi-line first paragraph", "Uno\nDos\n\nTres", "mi archivo", 2},
		{"digits only", "2026\n\nTexto", "mi archivo", 2},
		{"CRLF", "Título\r\n\r\nLínea 1\r\nLínea 2\r\n", "Título", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := extractString(t, "mi_archivo.txt", tt.src)
			if doc.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", doc.Title, tt.wantTitle)
			}
			if got := countBlocks(doc, Paragraph); got != tt.wantParagraphs {
				t.Errorf("paragraphs = %d, want %d\n%s", got, tt.wantParagraphs, dumpDocument(doc))
			}
		})
	}
}

func countBlocks(doc *Document, kind BlockKind) int {
	n := 0
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Kind == kind {
				n++
			}
		}
	}
	return n
}

// firstTable returns the document's first table or fails.
func firstTable(t *testing.T, doc *Document) *Table {
	t.Helper()
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Kind == TableBlock {
				return b.Table
			}
		}
	}
	t.Fatalf("no table in\n%s", dumpDocument(doc))
	return nil
}

func TestDelimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src string
		wantHeader      []string
		wantRows        [][]string
	}{
		{"comma", "a.csv", "a,b\n1,2\n", []string{"a", "b"}, [][]string{{"1", "2"}}},
		{"semicolon with decimal commas", "a.csv", "a;b\n1,5;2,5\n3,1;4\n", []string{"a", "b"}, [][]string{{"1,5", "2,5"}, {"3,1", "4"}}},
		{"tab in .csv", "a.csv", "a\tb\tc\n1\t2\t3\n", []string{"a", "b", "c"}, [][]string{{"1", "2", "3"}}},
		{"tsv keeps commas", "a.tsv", "a,x\tb\n1,2\t3\n", []string{"a,x", "b"}, [][]string{{"1,2", "3"}}},
		{"BOM and blank leading rows", "a.csv", "\xef\xbb\xbf\n,,\nid,name\n7,Ana\n", []string{"id", "name"}, [][]string{{"7", "Ana"}}},
		{"quoted newline", "a.csv", "id,note\n1,\"two\nlines\"\n", []string{"id", "note"}, [][]string{{"1", "two lines"}}},
		{"ragged rows widen the header", "a.csv", "a,b\n1\n1,2,3\n", []string{"a", "b", "column 3"}, [][]string{{"1"}, {"1", "2", "3"}}},
		{"bare quote tolerated", "a.csv", "a,b\n5\" pipe,x\n", []string{"a", "b"}, [][]string{{"5\" pipe", "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			table := firstTable(t, extractString(t, tt.file, tt.src))
			if !table.RowsAsRecords {
				t.Error("RowsAsRecords = false")
			}
			if strings.Join(table.Header, "|") != strings.Join(tt.wantHeader, "|") {
				t.Errorf("header = %q, want %q", table.Header, tt.wantHeader)
			}
			if len(table.Rows) != len(tt.wantRows) {
				t.Fatalf("rows = %q, want %q", table.Rows, tt.wantRows)
			}
			for i := range tt.wantRows {
				if strings.Join(table.Rows[i], "|") != strings.Join(tt.wantRows[i], "|") {
					t.Errorf("row %d = %q, want %q", i, table.Rows[i], tt.wantRows[i])
				}
			}
		})
	}
}

func TestDelimitedEmpty(t *testing.T) {
	t.Parallel()
	doc := extractString(t, "vacio.csv", "\n\n,,\n")
	if len(doc.Sections) != 0 {
		t.Errorf("sections = %d, want 0", len(doc.Sections))
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, in := range []string{"2026-03-14", "14/03/2026", "2026/03/14", "14 March 2026", "March 14, 2026", "Mar 14, 2026", "14.03.2026"} {
		if got := parseDate(in); !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, want %v", in, got, want)
		}
	}
	if got := parseDate("2026-03-14T10:30:00+01:00"); !got.Equal(time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("RFC 3339 parsed as %v", got)
	}
	if got := parseDate("pronto"); !got.IsZero() {
		t.Errorf("parseDate(pronto) = %v, want zero", got)
	}
}
