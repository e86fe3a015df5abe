package extracttest

import (
	"fmt"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

func odfMeta(d Doc) string {
	return docwrite.XMLHeader + `<office:document-meta ` + docwrite.ODFNS + ` office:version="1.3"><office:meta><dc:title>` + docwrite.Esc(d.Title) + `</dc:title>` +
		`<meta:initial-creator>` + docwrite.Esc(d.Author) + `</meta:initial-creator><dc:date>2026-03-14T10:00:00</dc:date></office:meta></office:document-meta>`
}

func odfManifest(mime string) string {
	return docwrite.XMLHeader + `<manifest:manifest ` + docwrite.ODFNS + ` manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mime + `"/>` +
		`<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`
}

func odfTable(name string, rows [][]string) string {
	width := 0
	for _, row := range rows {
		width = max(width, len(row))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<table:table table:name="%s"><table:table-column table:number-columns-repeated="%d"/>`, docwrite.Esc(name), max(width, 1))
	for _, row := range rows {
		b.WriteString(`<table:table-row>`)
		for _, cell := range row {
			b.WriteString(`<table:table-cell office:value-type="string"><text:p>` + docwrite.Esc(cell) + `</text:p></table:table-cell>`)
		}
		b.WriteString(`</table:table-row>`)
	}
	b.WriteString(`</table:table>`)
	return b.String()
}

func odfPackage(d Doc, mime, body string) ([]byte, error) {
	content := docwrite.XMLHeader + `<office:document-content ` + docwrite.ODFNS + ` office:version="1.3"><office:automatic-styles>` +
		`<text:list-style style:name="Vinetas"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/></text:list-style>` +
		`</office:automatic-styles><office:body>` + body + `</office:body></office:document-content>`
	return docwrite.ODF(mime, odfManifest(mime), content, odfMeta(d))
}

// BuildODT writes d as an OpenDocument text: headings as text:h level 1, paragraphs, bullets as
// a text:list, tables as table:table. It returns an error only when zipping fails.
func BuildODT(d Doc) ([]byte, error) {
	var b strings.Builder
	for i, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString(`<text:h text:outline-level="1">` + docwrite.Esc(s.Heading) + `</text:h>`)
		}
		for _, p := range s.Paragraphs {
			b.WriteString(`<text:p>` + docwrite.Esc(p) + `</text:p>`)
		}
		if len(s.Bullets) > 0 {
			b.WriteString(`<text:list text:style-name="Vinetas">`)
			for _, item := range s.Bullets {
				b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(item) + `</text:p></text:list-item>`)
			}
			b.WriteString(`</text:list>`)
		}
		if len(s.Table) > 0 {
			b.WriteString(odfTable(fmt.Sprintf("Tabla%d", i+1), s.Table))
		}
	}
	return odfPackage(d, "application/vnd.oasis.opendocument.text", `<office:text>`+b.String()+`</office:text>`)
}

// BuildODS writes d as an OpenDocument spreadsheet with one sheet per section, like BuildXLSX.
// It returns an error only when zipping fails.
func BuildODS(d Doc) ([]byte, error) {
	var b strings.Builder
	for i, s := range d.Sections {
		rows := s.Table
		if len(rows) == 0 {
			rows = [][]string{{"Notas"}}
			for _, p := range s.Paragraphs {
				rows = append(rows, []string{p})
			}
		}
		b.WriteString(odfTable(sheetName(s, i), rows))
	}
	return odfPackage(d, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet>`+b.String()+`</office:spreadsheet>`)
}
