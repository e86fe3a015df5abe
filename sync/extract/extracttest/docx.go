package extracttest

import (
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

// bulletList is the numbering (numId) of docxNumbering's bullets.
const bulletList = 1

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

func wordTable(rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>`)
	for _, row := range rows {
		b.WriteString(`<w:tr>`)
		for _, cell := range row {
			b.WriteString(`<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>` + docwrite.WordParagraph("", cell, 0, 0) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	return b.String()
}

func docxBody(d Doc) string {
	var b strings.Builder
	if d.Title != "" {
		b.WriteString(docwrite.WordParagraph("Title", d.Title, 0, 0))
	}
	for _, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString(docwrite.WordParagraph("Heading1", s.Heading, 0, 0))
		}
		for _, p := range s.Paragraphs {
			b.WriteString(docwrite.WordParagraph("", p, 0, 0))
		}
		for _, item := range s.Bullets {
			b.WriteString(docwrite.WordParagraph("ListParagraph", item, bulletList, 0))
		}
		if len(s.Table) > 0 {
			b.WriteString(wordTable(s.Table))
		}
	}
	return docwrite.XMLHeader + `<w:document ` + wordNS + `><w:body>` + b.String() + `<w:sectPr/></w:body></w:document>`
}

const docxStyles = docwrite.XMLHeader + `<w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style>
</w:styles>`

const docxNumbering = docwrite.XMLHeader + `<w:numbering ` + wordNS + `>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
</w:numbering>`

const contentTypesDOCX = docwrite.XMLHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`

const rootRelsDOCX = docwrite.XMLHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`

const documentRelsDOCX = docwrite.XMLHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`

// BuildDOCX writes d as a Word document: the title in the Title style, each heading in
// Heading 1, bullets as a numbered list of bullets, tables as Word tables. It returns an error
// only when zipping fails.
func BuildDOCX(d Doc) ([]byte, error) {
	return docwrite.Zip([]docwrite.Member{
		{Name: "[Content_Types].xml", Body: contentTypesDOCX},
		{Name: "_rels/.rels", Body: rootRelsDOCX},
		{Name: "word/document.xml", Body: docxBody(d)},
		{Name: "word/_rels/document.xml.rels", Body: documentRelsDOCX},
		{Name: "word/styles.xml", Body: docxStyles},
		{Name: "word/numbering.xml", Body: docxNumbering},
		{Name: "docProps/core.xml", Body: docwrite.CoreXML(d.Title, d.Author)},
	}, false)
}

// EncryptedOOXML imitates what Office writes for a password-protected .docx/.xlsx/.pptx: an OLE
// compound file holding an "EncryptedPackage" stream (only the parts a reader checks first).
func EncryptedOOXML() []byte { return docwrite.EncryptedOOXML() }
