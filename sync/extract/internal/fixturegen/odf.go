package main

import (
	"fmt"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

func odfMeta() string {
	return docwrite.XMLHeader + `<office:document-meta ` + docwrite.ODFNS + `><office:meta><dc:title>` + docwrite.Esc(docTitle) + `</dc:title>` +
		`<meta:initial-creator>` + docwrite.Esc(docAuthor) + `</meta:initial-creator><dc:creator>Luis</dc:creator>` +
		`<dc:date>2026-03-14T10:00:00.123456789</dc:date></office:meta></office:document-meta>`
}

func odfManifest(mime string) string {
	return docwrite.XMLHeader + `<manifest:manifest ` + docwrite.ODFNS + `><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mime + `"/></manifest:manifest>`
}

func odfTable(name string, rows [][]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<table:table table:name="%s"><table:table-column table:number-columns-repeated="3"/>`, docwrite.Esc(name))
	for _, row := range rows {
		b.WriteString(`<table:table-row>`)
		for _, cell := range row {
			b.WriteString(`<table:table-cell office:value-type="string"><text:p>` + docwrite.Esc(cell) + `</text:p></table:table-cell>`)
		}
		b.WriteString(`<table:table-cell table:number-columns-repeated="16000"/></table:table-row>`)
	}
	b.WriteString(`<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>`)
	return b.String()
}

func makeODT() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`<text:h text:outline-level="1">` + docwrite.Esc(heading1) + `</text:h>`)
	b.WriteString(`<text:p>La solicitud se tramita en el <text:span>área</text:span> de<text:s/>Administración con un año de antelación.<text:note><text:note-body><text:p>Nota al pie que no es contenido.</text:p></text:note-body></text:note></text:p>`)
	b.WriteString(`<text:h text:outline-level="2">` + docwrite.Esc(heading2) + `</text:h>`)
	b.WriteString(`<text:list text:style-name="Numerada">`)
	b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(numbered[0].text) + `</text:p><text:list>`)
	b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(numbered[1].text) + `</text:p></text:list-item>`)
	b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(numbered[2].text) + `</text:p></text:list-item>`)
	b.WriteString(`</text:list></text:list-item>`)
	b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(numbered[3].text) + `</text:p></text:list-item></text:list>`)
	b.WriteString(`<text:list text:style-name="Vinetas">`)
	for _, item := range bullets {
		b.WriteString(`<text:list-item><text:p>` + docwrite.Esc(item) + `</text:p></text:list-item>`)
	}
	b.WriteString(`</text:list>`)
	b.WriteString(odfTable("Tabla1", table))
	content := docwrite.XMLHeader + `<office:document-content ` + docwrite.ODFNS + `><office:automatic-styles>` +
		`<text:list-style style:name="Numerada"><text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"/><text:list-level-style-number text:level="2" style:num-suffix=")" style:num-format="a"/></text:list-style>` +
		`<text:list-style style:name="Vinetas"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/></text:list-style>` +
		`</office:automatic-styles><office:body><office:text>` + b.String() + `</office:text></office:body></office:document-content>`
	mime := "application/vnd.oasis.opendocument.text"
	return docwrite.ODF(mime, odfManifest(mime), content, odfMeta())
}

func makeODS() ([]byte, error) {
	rows := [][]string{{"Almacén", "Código", "Unidades"}, {"Madrid", code, "12"}, {"Sevilla", "SKU-10001", "3"}}
	content := docwrite.XMLHeader + `<office:document-content ` + docwrite.ODFNS + `><office:body><office:spreadsheet>` +
		odfTable("Inventario", rows) + odfTable("Vacía", nil) + `</office:spreadsheet></office:body></office:document-content>`
	mime := "application/vnd.oasis.opendocument.spreadsheet"
	return docwrite.ODF(mime, odfManifest(mime), content, odfMeta())
}
