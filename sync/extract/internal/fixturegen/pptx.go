package main

import (
	"fmt"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

// pptShape writes every shape with id 2 and name "s": the extractor must not rely on either.
func pptShape(placeholder, paragraphs string) string {
	return docwrite.PPTShape(2, "s", placeholder, paragraphs)
}

func pptParagraph(level int, text string) string {
	return fmt.Sprintf(`<a:p><a:pPr lvl="%d"/><a:r><a:t>%s</a:t></a:r></a:p>`, level, docwrite.Esc(text))
}

func pptTable() string {
	var b strings.Builder
	b.WriteString(`<p:graphicFrame><a:graphic><a:graphicData><a:tbl>`)
	for _, row := range table {
		b.WriteString(`<a:tr h="0">`)
		for _, cell := range row {
			b.WriteString(`<a:tc><a:txBody><a:bodyPr/>` + pptParagraph(0, cell) + `</a:txBody></a:tc>`)
		}
		b.WriteString(`</a:tr>`)
	}
	b.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	return b.String()
}

// makePPTX writes 11 slides so that name order (slide10 before slide2) and presentation order
// differ; slide 2 has a table and speaker notes.
func makePPTX() ([]byte, error) {
	const slideCount = 11
	var body strings.Builder
	for _, item := range numbered {
		body.WriteString(pptParagraph(item.level, item.text))
	}
	slides := map[int]string{
		1: docwrite.PPTSlide(pptShape("ctrTitle", pptParagraph(0, docTitle)) + pptShape("", body.String()) +
			pptShape("-", pptParagraph(0, intro)) + pptShape("sldNum", pptParagraph(0, "1"))),
		2: docwrite.PPTSlide(pptShape("title", pptParagraph(0, heading2)) + pptTable()),
	}
	// A DOCX's [Content_Types].xml and no _rels/.rels, as the fixture always had: the extractor
	// finds ppt/presentation.xml by its fixed name.
	members := []docwrite.Member{{Name: "[Content_Types].xml", Body: contentTypesDOCX}}
	for n := slideCount; n >= 1; n-- { // reverse member order: a reader must not trust it
		xml, ok := slides[n]
		if !ok {
			xml = docwrite.PPTSlide(pptShape("title", pptParagraph(0, fmt.Sprintf("Diapositiva %d", n))) + pptShape("", pptParagraph(0, fmt.Sprintf("Contenido %d", n))))
		}
		members = append(members, docwrite.Member{Name: fmt.Sprintf("ppt/slides/slide%d.xml", n), Body: xml})
		rels := `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideLayout" Target="../slideLayouts/slideLayout1.xml"/>`
		if n == 2 {
			rels += `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide7.xml"/>`
		}
		members = append(members, docwrite.Member{Name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), Body: docwrite.Relationships(rels)})
	}
	// The notes file number differs from the slide number on purpose: the link is the rels.
	notesXML := docwrite.PPTNotes(pptShape("sldImg", "") + pptShape("body", pptParagraph(0, notes)) + pptShape("sldNum", pptParagraph(0, "2")))
	members = append(members, docwrite.Member{Name: "ppt/notesSlides/notesSlide7.xml", Body: notesXML})
	members = append(members, docwrite.PPTPresentation(slideCount)...)
	members = append(members, docwrite.Member{Name: "docProps/core.xml", Body: docwrite.CoreXML(docTitle, docAuthor)})
	return docwrite.Zip(members, false)
}
