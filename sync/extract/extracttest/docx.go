package extracttest

import (
	"fmt"
	"strings"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

func wordParagraph(style string, bulleted bool, text string) string {
	var ppr strings.Builder
	if style != "" {
		fmt.Fprintf(&ppr, `<w:pStyle w:val="%s"/>`, style)
	}
	if bulleted {
		ppr.WriteString(`<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`)
	}
	return `<w:p><w:pPr>` + ppr.String() + `</w:pPr><w:r><w:t xml:space="preserve">` + esc(text) + `</w:t></w:r></w:p>`
}

func wordTable(rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>`)
	for _, row := range rows {
		b.WriteString(`<w:tr>`)
		for _, cell := range row {
			b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>` + wordParagraph("", false, cell) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	return b.String()
}

func docxBody(d Doc) string {
	var b strings.Builder
	if d.Title != "" {
		b.WriteString(wordParagraph("Title", false, d.Title))
	}
	for _, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString(wordParagraph("Heading1", false, s.Heading))
		}
		for _, p := range s.Paragraphs {
			b.WriteString(wordParagraph("", false, p))
		}
		for _, item := range s.Bullets {
			b.WriteString(wordParagraph("ListParagraph", true, item))
		}
		if len(s.Table) > 0 {
			b.WriteString(wordTable(s.Table))
		}
	}
	return xmlHeader + `<w:document ` + wordNS + `><w:body>` + b.String() + `<w:sectPr/></w:body></w:document>`
}

const docxStyles = xmlHeader + `<w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>
</w:styles>`

const docxNumbering = xmlHeader + `<w:numbering ` + wordNS + `>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
</w:numbering>`

func coreXML(d Doc) string {
	return xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>` + esc(d.Title) + `</dc:title><dc:creator>` + esc(d.Author) + `</dc:creator>` +
		`<dcterms:modified xsi:type="dcterms:W3CDTF">2026-03-14T10:00:00Z</dcterms:modified></cp:coreProperties>`
}

const contentTypesDOCX = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`

const rootRelsDOCX = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`

const documentRelsDOCX = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`

// BuildDOCX writes d as a Word document: the title in the Title style, each heading in
// Heading 1, bullets as a numbered list of bullets, tables as Word tables. It returns an error
// only when zipping fails.
func BuildDOCX(d Doc) ([]byte, error) {
	return zipMembers([]member{
		{"[Content_Types].xml", contentTypesDOCX},
		{"_rels/.rels", rootRelsDOCX},
		{"word/document.xml", docxBody(d)},
		{"word/_rels/document.xml.rels", documentRelsDOCX},
		{"word/styles.xml", docxStyles},
		{"word/numbering.xml", docxNumbering},
		{"docProps/core.xml", coreXML(d)},
	}, false)
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
