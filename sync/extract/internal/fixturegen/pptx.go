package main

import (
	"fmt"
	"strings"
)

const drawingNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

func pptShape(phType string, paragraphs string) string {
	ph := ""
	if phType != "-" {
		ph = `<p:ph type="` + phType + `"/>`
		if phType == "" {
			ph = `<p:ph idx="1"/>`
		}
	}
	return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>` + ph + `</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>` + paragraphs + `</p:txBody></p:sp>`
}

func pptParagraph(level int, text string) string {
	return fmt.Sprintf(`<a:p><a:pPr lvl="%d"/><a:r><a:t>%s</a:t></a:r></a:p>`, level, esc(text))
}

func pptSlide(shapes string) string {
	return xmlHeader + `<p:sld ` + drawingNS + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:sld>`
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
		1: pptSlide(pptShape("ctrTitle", pptParagraph(0, docTitle)) + pptShape("", body.String()) +
			pptShape("-", pptParagraph(0, intro)) + pptShape("sldNum", pptParagraph(0, "1"))),
		2: pptSlide(pptShape("title", pptParagraph(0, heading2)) + pptTable()),
	}
	var members []member
	var sldIDs, presRels strings.Builder
	for n := slideCount; n >= 1; n-- { // reverse member order: a reader must not trust it
		xml, ok := slides[n]
		if !ok {
			xml = pptSlide(pptShape("title", pptParagraph(0, fmt.Sprintf("Diapositiva %d", n))) + pptShape("", pptParagraph(0, fmt.Sprintf("Contenido %d", n))))
		}
		members = append(members, member{fmt.Sprintf("ppt/slides/slide%d.xml", n), xml})
		rels := `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideLayout" Target="../slideLayouts/slideLayout1.xml"/>`
		if n == 2 {
			rels += `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide7.xml"/>`
		}
		members = append(members, member{fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels + `</Relationships>`})
	}
	for n := 1; n <= slideCount; n++ {
		fmt.Fprintf(&sldIDs, `<p:sldId id="%d" r:id="rId%d"/>`, 255+n, 100+n)
		fmt.Fprintf(&presRels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, 100+n, n)
	}
	// The notes file number differs from the slide number on purpose: the link is the rels.
	notesXML := xmlHeader + `<p:notes ` + drawingNS + `><p:cSld><p:spTree>` + pptShape("sldImg", "") +
		pptShape("body", pptParagraph(0, notes)) + pptShape("sldNum", pptParagraph(0, "2")) + `</p:spTree></p:cSld></p:notes>`
	members = append(members,
		member{"ppt/notesSlides/notesSlide7.xml", notesXML},
		member{"ppt/presentation.xml", xmlHeader + `<p:presentation ` + drawingNS + `><p:sldIdLst>` + sldIDs.String() + `</p:sldIdLst></p:presentation>`},
		member{"ppt/_rels/presentation.xml.rels", xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + presRels.String() + `</Relationships>`},
		member{"docProps/core.xml", coreXML()},
	)
	return zipMembers(append([]member{{"[Content_Types].xml", contentTypesDOCX}}, members...), false)
}
