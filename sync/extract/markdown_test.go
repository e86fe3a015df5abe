package extract

import (
	"strings"
	"testing"
	"time"
)

// paths lists each section's path joined with " > ".
func paths(doc *Document) []string {
	var out []string
	for _, s := range doc.Sections {
		out = append(out, strings.Join(s.Path, " > "))
	}
	return out
}

func TestMarkdownFrontMatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		src          string
		wantTitle    string
		wantAuthor   string
		wantModified time.Time
		wantPaths    []string
		wantBody     string // a paragraph that must survive
	}{
		{
			name:         "title, owner, unquoted date; H1 equal to title left out",
			src:          "---\ntitle: Guía\nowner: Ana\nupdated: 2026-03-14\n---\n# Guía\n\ntexto\n\n## Uno\n\nmás\n",
			wantTitle:    "Guía",
			wantAuthor:   "Ana",
			wantModified: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC),
			wantPaths:    []string{"", "Uno"},
		},
		{
			name:       "author list and day-first date",
			src:        "---\nauthor: [Ana, Luis]\ndate: \"02/01/2026\"\n---\ntexto\n",
			wantTitle:  "f",
			wantAuthor: "Ana, Luis",
			// Day first, as written in Spain.
			wantModified: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
			wantPaths:    []string{""},
		},
		{
			name:       "author mapping; H1 different from title stays in the path",
			src:        "---\ntitle: Manual\nauthor: {name: Pilar, email: p@example.com}\n---\n# Capítulo 1\n\ntexto\n",
			wantTitle:  "Manual",
			wantAuthor: "Pilar",
			wantPaths:  []string{"Capítulo 1"},
		},
		{
			name:      "no front matter: first H1 is the title, later H1s are paths",
			src:       "# Título\n\nintro\n\n## A\n\na\n\n# Otro\n\n### B\n\nb\n",
			wantTitle: "Título",
			wantPaths: []string{"", "A", "Otro > B"},
		},
		{
			name:      "leading rule over text that is no YAML mapping stays Markdown (a setext heading)",
			src:       "---\nHola mundo\n---\n\ntexto\n",
			wantTitle: "f",
			wantPaths: []string{"Hola mundo"},
		},
		{
			name:      "unclosed front matter is body",
			src:       "---\ntitle: x\n\ntexto\n",
			wantTitle: "f",
			wantPaths: []string{""},
			wantBody:  "title: x",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := extractString(t, "f.md", tt.src)
			if doc.Title != tt.wantTitle || doc.Author != tt.wantAuthor || !doc.Modified.Equal(tt.wantModified) {
				t.Errorf("got title %q author %q modified %v, want %q %q %v",
					doc.Title, doc.Author, doc.Modified, tt.wantTitle, tt.wantAuthor, tt.wantModified)
			}
			if got := strings.Join(paths(doc), ";"); got != strings.Join(tt.wantPaths, ";") {
				t.Errorf("paths = %q, want %q\n%s", paths(doc), tt.wantPaths, dumpDocument(doc))
			}
			if tt.wantBody != "" && !strings.Contains(dumpDocument(doc), "P: "+tt.wantBody+"\n") {
				t.Errorf("body lacks %q\n%s", tt.wantBody, dumpDocument(doc))
			}
		})
	}
}

func TestMarkdownBlocks(t *testing.T) {
	t.Parallel()
	src := "# T\n\n## Pasos\n\n" +
		"3. tres\n4. cuatro\n   - sub a\n     1. subsub\n   - sub b\n\n" +
		"```\n# comentario\n## otro\n```\n\n" +
		"| A | B |\n|---|---|\n| 1 | `x|y` no |\n| 2 |\n\n" +
		"Texto con [enlace](http://e.x) y ![logo](l.png) y <https://auto.link>.\n"
	doc := extractString(t, "f.md", src)
	if got := paths(doc); len(got) != 1 || got[0] != "Pasos" {
		t.Fatalf("paths = %q, want [Pasos] (code lines are not headings)\n%s", got, dumpDocument(doc))
	}
	var items []string
	for _, b := range doc.Sections[0].Blocks {
		if b.Kind == ListItem {
			items = append(items, strings.Repeat(">", b.Level)+b.Text)
		}
	}
	want := []string{"3. tres", "4. cuatro", ">sub a", ">>1. subsub", ">sub b"}
	if strings.Join(items, "|") != strings.Join(want, "|") {
		t.Errorf("items = %q, want %q", items, want)
	}
	table := firstTable(t, doc)
	if strings.Join(table.Header, "|") != "A|B" || table.RowsAsRecords {
		t.Errorf("header = %q, records = %v", table.Header, table.RowsAsRecords)
	}
	if len(table.Rows) != 2 || table.Rows[1][0] != "2" {
		t.Errorf("rows = %q", table.Rows)
	}
	blocks := doc.Sections[0].Blocks
	last := blocks[len(blocks)-1]
	if last.Text != "Texto con enlace y logo y https://auto.link." {
		t.Errorf("inline text = %q", last.Text)
	}
	if countBlocks(doc, Code) != 1 {
		t.Errorf("code blocks = %d, want 1", countBlocks(doc, Code))
	}
}
