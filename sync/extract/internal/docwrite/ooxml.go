package docwrite

import (
	"fmt"
	"strings"
)

// CoreXML returns docProps/core.xml with the title, the author and a fixed modification date.
func CoreXML(title, author string) string {
	return XMLHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>` + Esc(title) + `</dc:title><dc:creator>` + Esc(author) + `</dc:creator>` +
		`<dcterms:modified xsi:type="dcterms:W3CDTF">2026-03-14T10:00:00Z</dcterms:modified></cp:coreProperties>`
}

// Relationships wraps relationship elements in an OPC .rels part.
func Relationships(rels string) string {
	return XMLHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels + `</Relationships>`
}

// EncryptedOOXML imitates what Office writes for a password-protected .docx/.xlsx/.pptx: an OLE
// compound file holding an "EncryptedPackage" stream (only the parts a reader checks first).
func EncryptedOOXML() []byte {
	data := make([]byte, 1536)
	copy(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	for i, r := range "EncryptedPackage" {
		data[1024+2*i] = byte(r)
	}
	return data
}

// WordParagraph returns a w:p in the given style ("" for none) holding text in one run; a numID
// above 0 makes it an item of that numbering at level ilvl.
func WordParagraph(style, text string, numID, ilvl int) string {
	var ppr strings.Builder
	if style != "" {
		fmt.Fprintf(&ppr, `<w:pStyle w:val="%s"/>`, style)
	}
	if numID > 0 {
		fmt.Fprintf(&ppr, `<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, ilvl, numID)
	}
	return `<w:p><w:pPr>` + ppr.String() + `</w:pPr><w:r><w:t xml:space="preserve">` + Esc(text) + `</w:t></w:r></w:p>`
}

// DrawingNS declares the DrawingML and PresentationML namespaces of a slide or notes part.
const DrawingNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// PPTShape returns a p:sp holding paragraphs (a:p elements). placeholder names the placeholder
// type; "" writes a body placeholder (idx 1) and "-" a plain text box.
func PPTShape(id int, name, placeholder, paragraphs string) string {
	ph := `<p:ph type="` + placeholder + `"/>`
	switch placeholder {
	case "":
		ph = `<p:ph idx="1"/>`
	case "-":
		ph = ""
	}
	return fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="%d" name="%s"/><p:cNvSpPr/><p:nvPr>%s</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>%s</p:txBody></p:sp>`, id, Esc(name), ph, paragraphs)
}

// PPTSlide returns a slide part holding shapes.
func PPTSlide(shapes string) string {
	return XMLHeader + `<p:sld ` + DrawingNS + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:sld>`
}

// PPTNotes returns a notes-slide part holding shapes.
func PPTNotes(shapes string) string {
	return XMLHeader + `<p:notes ` + DrawingNS + `><p:cSld><p:spTree>` + shapes + `</p:spTree></p:cSld></p:notes>`
}

// PPTPresentation returns ppt/presentation.xml and its relationships for slides 1 to n, in that
// order, each at ppt/slides/slideN.xml.
func PPTPresentation(n int) []Member {
	var sldIDs, rels strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sldIDs, `<p:sldId id="%d" r:id="rId%d"/>`, 255+i, 100+i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, 100+i, i)
	}
	return []Member{
		{"ppt/presentation.xml", XMLHeader + `<p:presentation ` + DrawingNS + `><p:sldIdLst>` + sldIDs.String() + `</p:sldIdLst></p:presentation>`},
		{"ppt/_rels/presentation.xml.rels", Relationships(rels.String())},
	}
}
