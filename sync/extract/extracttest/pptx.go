package extracttest

import (
	"fmt"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

// pptShape is a shape named after its id; placeholder as docwrite.PPTShape takes it.
func pptShape(id int, placeholder, paragraphs string) string {
	return docwrite.PPTShape(id, fmt.Sprintf("Shape %d", id), placeholder, paragraphs)
}

func pptParagraph(text string) string {
	return `<a:p><a:r><a:rPr lang="es-ES"/><a:t>` + docwrite.Esc(text) + `</a:t></a:r></a:p>`
}

func pptTable(rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Tabla"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>`)
	for _, row := range rows {
		b.WriteString(`<a:tr h="370840">`)
		for _, cell := range row {
			b.WriteString(`<a:tc><a:txBody><a:bodyPr/>` + pptParagraph(cell) + `</a:txBody></a:tc>`)
		}
		b.WriteString(`</a:tr>`)
	}
	b.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	return b.String()
}

func pptSlide(s Section) string {
	var body strings.Builder
	for _, p := range s.Paragraphs {
		body.WriteString(pptParagraph(p))
	}
	for _, item := range s.Bullets {
		body.WriteString(pptParagraph(item))
	}
	shapes := pptShape(2, "title", pptParagraph(s.Heading))
	if body.Len() > 0 {
		shapes += pptShape(3, "", body.String())
	}
	if len(s.Table) > 0 {
		shapes += pptTable(s.Table)
	}
	return docwrite.PPTSlide(shapes)
}

// BuildPPTX writes d as a presentation with one slide per section (title placeholder = the
// heading, body placeholder = paragraphs and bullets, a table frame for the table) and the
// section's notes as the slide's speaker notes. It returns an error only when zipping fails.
func BuildPPTX(d Doc) ([]byte, error) {
	members := []docwrite.Member{{Name: "[Content_Types].xml", Body: contentTypesPPTX}, {Name: "_rels/.rels", Body: rootRelsPPTX}}
	for i, s := range d.Sections {
		n := i + 1
		members = append(members, docwrite.Member{Name: fmt.Sprintf("ppt/slides/slide%d.xml", n), Body: pptSlide(s)})
		rels := ""
		if s.Notes != "" {
			rels = fmt.Sprintf(`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide%d.xml"/>`, n)
			notes := docwrite.PPTNotes(pptShape(2, "body", pptParagraph(s.Notes)))
			members = append(members, docwrite.Member{Name: fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n), Body: notes})
		}
		members = append(members, docwrite.Member{Name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), Body: docwrite.Relationships(rels)})
	}
	members = append(members, docwrite.PPTPresentation(len(d.Sections))...)
	members = append(members, docwrite.Member{Name: "docProps/core.xml", Body: docwrite.CoreXML(d.Title, d.Author)})
	return docwrite.Zip(members, false)
}

const contentTypesPPTX = docwrite.XMLHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`

var rootRelsPPTX = docwrite.Relationships(`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/>`)
