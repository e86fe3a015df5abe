package extracttest

import (
	"fmt"
	"strings"
)

const drawingNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// pptShape is a shape; placeholder "" writes a body placeholder, "-" a plain text box.
func pptShape(id int, placeholder, paragraphs string) string {
	ph := `<p:ph type="` + placeholder + `"/>`
	switch placeholder {
	case "":
		ph = `<p:ph idx="1"/>`
	case "-":
		ph = ""
	}
	return fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="%d" name="Shape %d"/><p:cNvSpPr/><p:nvPr>%s</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>%s</p:txBody></p:sp>`, id, id, ph, paragraphs)
}

func pptParagraph(text string) string {
	return `<a:p><a:r><a:rPr lang="es-ES"/><a:t>` + esc(text) + `</a:t></a:r></a:p>`
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
	return xmlHeader + `<p:sld ` + drawingNS + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:sld>`
}

func relationships(rels string) string {
	return xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels + `</Relationships>`
}

// BuildPPTX writes d as a presentation with one slide per section (title placeholder = the
// heading, body placeholder = paragraphs and bullets, a table frame for the table) and the
// section's notes as the slide's speaker notes. It returns an error only when zipping fails.
func BuildPPTX(d Doc) ([]byte, error) {
	members := []member{{"[Content_Types].xml", contentTypesPPTX}, {"_rels/.rels", rootRelsPPTX}}
	var sldIDs, presRels strings.Builder
	for i, s := range d.Sections {
		n := i + 1
		members = append(members, member{fmt.Sprintf("ppt/slides/slide%d.xml", n), pptSlide(s)})
		rels := ""
		if s.Notes != "" {
			rels = fmt.Sprintf(`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide%d.xml"/>`, n)
			notes := xmlHeader + `<p:notes ` + drawingNS + `><p:cSld><p:spTree>` + pptShape(2, "body", pptParagraph(s.Notes)) + `</p:spTree></p:cSld></p:notes>`
			members = append(members, member{fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n), notes})
		}
		members = append(members, member{fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), relationships(rels)})
		fmt.Fprintf(&sldIDs, `<p:sldId id="%d" r:id="rId%d"/>`, 255+n, 100+n)
		fmt.Fprintf(&presRels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, 100+n, n)
	}
	members = append(members,
		member{"ppt/presentation.xml", xmlHeader + `<p:presentation ` + drawingNS + `><p:sldIdLst>` + sldIDs.String() + `</p:sldIdLst></p:presentation>`},
		member{"ppt/_rels/presentation.xml.rels", relationships(presRels.String())},
		member{"docProps/core.xml", coreXML(d)},
	)
	return zipMembers(members, false)
}

const contentTypesPPTX = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`

const rootRelsPPTX = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/></Relationships>`
