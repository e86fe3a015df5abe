package main

import (
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

func docxBody() string {
	var b strings.Builder
	b.WriteString(docwrite.WordParagraph("Title", docTitle, 0, 0))
	b.WriteString(docwrite.WordParagraph("Ttulo1", heading1, 0, 0)) // a Spanish Word's id for "heading 1"
	// A run split in two with a tab and a deleted revision that must not show.
	b.WriteString(`<w:p><w:r><w:t>La solicitud se tramita en el área de </w:t></w:r><w:del><w:r><w:delText>Compras</w:delText></w:r></w:del><w:r><w:t>Administración con un año de antelación.</w:t></w:r></w:p>`)
	b.WriteString(docwrite.WordParagraph("Heading2", heading2, 0, 0))
	for _, item := range numbered {
		b.WriteString(docwrite.WordParagraph("ListParagraph", item.text, 1, item.level))
	}
	for _, item := range bullets {
		b.WriteString(docwrite.WordParagraph("ListParagraph", item, 2, 0))
	}
	b.WriteString(`<w:tbl><w:tblPr/>`)
	for _, row := range table {
		b.WriteString(`<w:tr>`)
		for i, cell := range row {
			if i == 1 && strings.Contains(cell, " ") { // two paragraphs in one cell must join on one line
				parts := strings.SplitN(cell, " ", 2)
				b.WriteString(`<w:tc>` + docwrite.WordParagraph("", parts[0], 0, 0) + docwrite.WordParagraph("", parts[1], 0, 0) + `</w:tc>`)
				continue
			}
			b.WriteString(`<w:tc>` + docwrite.WordParagraph("", cell, 0, 0) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	b.WriteString(docwrite.WordParagraph("", "Texto después de la tabla.", 0, 0))
	return docwrite.XMLHeader + `<w:document ` + wordNS + `><w:body>` + b.String() + `<w:sectPr/></w:body></w:document>`
}

const docxStyles = docwrite.XMLHeader + `<w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Ttulo1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>
</w:styles>`

const docxNumbering = docwrite.XMLHeader + `<w:numbering ` + wordNS + `>
<w:abstractNum w:abstractNumId="10"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="20"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="20"/></w:num>
</w:numbering>`

const contentTypesDOCX = docwrite.XMLHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`

const rootRelsDOCX = docwrite.XMLHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`

func makeDOCX() ([]byte, error) {
	return docwrite.Zip([]docwrite.Member{
		{Name: "[Content_Types].xml", Body: contentTypesDOCX},
		{Name: "_rels/.rels", Body: rootRelsDOCX},
		{Name: "word/document.xml", Body: docxBody()},
		{Name: "word/styles.xml", Body: docxStyles},
		{Name: "word/numbering.xml", Body: docxNumbering},
		{Name: "docProps/core.xml", Body: docwrite.CoreXML(docTitle, docAuthor)},
	}, false)
}

func makeDOCXWithoutBody() ([]byte, error) {
	return docwrite.Zip([]docwrite.Member{{Name: "[Content_Types].xml", Body: contentTypesDOCX}, {Name: "_rels/.rels", Body: rootRelsDOCX}}, false)
}

// makeEncryptedOOXML imitates what Office writes for a password-protected .docx.
func makeEncryptedOOXML() ([]byte, error) { return docwrite.EncryptedOOXML(), nil }
