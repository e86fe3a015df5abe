package main

import (
	"fmt"
	"strings"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

func wordParagraph(style, text string, numID, ilvl int) string {
	var ppr strings.Builder
	if style != "" {
		fmt.Fprintf(&ppr, `<w:pStyle w:val="%s"/>`, style)
	}
	if numID > 0 {
		fmt.Fprintf(&ppr, `<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, ilvl, numID)
	}
	return fmt.Sprintf(`<w:p><w:pPr>%s</w:pPr><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, ppr.String(), esc(text))
}

func docxBody() string {
	var b strings.Builder
	b.WriteString(wordParagraph("Title", docTitle, 0, 0))
	b.WriteString(wordParagraph("Ttulo1", heading1, 0, 0)) // a Spanish Word's id for "heading 1"
	// A run split in two with a tab and a deleted revision that must not show.
	b.WriteString(`<w:p><w:r><w:t>La solicitud se tramita en el área de </w:t></w:r><w:del><w:r><w:delText>Compras</w:delText></w:r></w:del><w:r><w:t>Administración con un año de antelación.</w:t></w:r></w:p>`)
	b.WriteString(wordParagraph("Heading2", heading2, 0, 0))
	for _, item := range numbered {
		b.WriteString(wordParagraph("ListParagraph", item.text, 1, item.level))
	}
	for _, item := range bullets {
		b.WriteString(wordParagraph("ListParagraph", item, 2, 0))
	}
	b.WriteString(`<w:tbl><w:tblPr/>`)
	for _, row := range table {
		b.WriteString(`<w:tr>`)
		for i, cell := range row {
			if i == 1 && strings.Contains(cell, " ") { // two paragraphs in one cell must join on one line
				parts := strings.SplitN(cell, " ", 2)
				b.WriteString(`<w:tc>` + wordParagraph("", parts[0], 0, 0) + wordParagraph("", parts[1], 0, 0) + `</w:tc>`)
				continue
			}
			b.WriteString(`<w:tc>` + wordParagraph("", cell, 0, 0) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	b.WriteString(wordParagraph("", "Texto después de la tabla.", 0, 0))
	return xmlHeader + `<w:document ` + wordNS + `><w:body>` + b.String() + `<w:sectPr/></w:body></w:document>`
}

const docxStyles = xmlHeader + `<w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Ttulo1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>
</w:styles>`

const docxNumbering = xmlHeader + `<w:numbering ` + wordNS + `>
<w:abstractNum w:abstractNumId="10"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="20"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="20"/></w:num>
</w:numbering>`

func coreXML() string {
	return xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>` + esc(docTitle) + `</dc:title><dc:creator>` + esc(docAuthor) + `</dc:creator>` +
		`<dcterms:modified xsi:type="dcterms:W3CDTF">2026-03-14T10:00:00Z</dcterms:modified></cp:coreProperties>`
}

const contentTypesDOCX = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`

const rootRelsDOCX = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`

func makeDOCX() ([]byte, error) {
	return zipMembers([]member{
		{"[Content_Types].xml", contentTypesDOCX},
		{"_rels/.rels", rootRelsDOCX},
		{"word/document.xml", docxBody()},
		{"word/styles.xml", docxStyles},
		{"word/numbering.xml", docxNumbering},
		{"docProps/core.xml", coreXML()},
	}, false)
}

func makeDOCXWithoutBody() ([]byte, error) {
	return zipMembers([]member{{"[Content_Types].xml", contentTypesDOCX}, {"_rels/.rels", rootRelsDOCX}}, false)
}

// makeEncryptedOOXML imitates what Office writes for a password-protected .docx: an OLE
// compound file holding an "EncryptedPackage" stream (only the parts a reader checks first).
func makeEncryptedOOXML() ([]byte, error) {
	data := make([]byte, 1536)
	copy(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	name := "EncryptedPackage"
	for i, r := range name {
		data[1024+2*i] = byte(r)
	}
	return data, nil
}
