package extracttest

import (
	"encoding/csv"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

// BuildHTML writes d as a web page with site chrome the extractor must drop (a script, a
// navigation bar, a footer) around a <main> holding headings, paragraphs, lists and tables.
func BuildHTML(d Doc) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"es\"><head><meta charset=\"utf-8\"><title>" + docwrite.Esc(d.Title) + "</title>")
	b.WriteString("<script>window.analytics = {track: function () {}};</script><style>td { padding: 2px }</style></head>\n<body>")
	b.WriteString("<nav><a href=\"/\">Inicio</a> <a href=\"/intranet\">Intranet</a></nav>\n<main>\n<h1>" + docwrite.Esc(d.Title) + "</h1>\n")
	for _, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString("<h2>" + docwrite.Esc(s.Heading) + "</h2>\n")
		}
		for _, p := range s.Paragraphs {
			b.WriteString("<p>" + docwrite.Esc(p) + "</p>\n")
		}
		if len(s.Bullets) > 0 {
			b.WriteString("<ul>")
			for _, item := range s.Bullets {
				b.WriteString("<li>" + docwrite.Esc(item) + "</li>")
			}
			b.WriteString("</ul>\n")
		}
		if len(s.Table) > 0 {
			b.WriteString("<table>\n<thead><tr>")
			for _, h := range s.Table[0] {
				b.WriteString("<th>" + docwrite.Esc(h) + "</th>")
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range s.Table[1:] {
				// No whitespace between cells: the cell boundary is the only separator.
				b.WriteString("<tr>")
				for _, cell := range row {
					b.WriteString("<td>" + docwrite.Esc(cell) + "</td>")
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody></table>\n")
		}
	}
	b.WriteString("</main>\n<footer>© 2026 Intranet corporativa · Aviso legal</footer></body></html>\n")
	return b.String()
}

// BuildCSV writes the first table of d as comma-separated values (header first); "" when d has
// no table.
func BuildCSV(d Doc) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.WriteAll(d.firstTable()) // writing to a strings.Builder cannot fail
	return b.String()
}

// BuildMarkdown writes d as Markdown: "# title", "## heading", paragraphs, "- " bullets and pipe
// tables.
func BuildMarkdown(d Doc) string {
	var b strings.Builder
	if d.Title != "" {
		b.WriteString("# " + d.Title + "\n\n")
	}
	for _, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString("## " + s.Heading + "\n\n")
		}
		for _, p := range s.Paragraphs {
			b.WriteString(p + "\n\n")
		}
		for _, item := range s.Bullets {
			b.WriteString("- " + item + "\n")
		}
		if len(s.Bullets) > 0 {
			b.WriteString("\n")
		}
		if len(s.Table) > 0 {
			for i, row := range s.Table {
				b.WriteString("|" + strings.Join(escapePipes(row), "|") + "|\n")
				if i == 0 {
					b.WriteString(strings.Repeat("|---", len(row)) + "|\n")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func escapePipes(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}
