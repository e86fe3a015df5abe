package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzOffice fuzzes Extract under each of names, seeded with the generated fixtures of those
// extensions and, when CITA_SHARED_DIR is set, the real office files too.
func fuzzOffice(f *testing.F, names ...string) {
	dirs := []string{filepath.Join("testdata", "fixtures")}
	if shared := os.Getenv("CITA_SHARED_DIR"); shared != "" {
		dirs = append(dirs, filepath.Join(shared, "fixtures", "office"))
	}
	exts := make([]string, len(names))
	for i, name := range names {
		exts[i] = filepath.Ext(name)
	}
	for _, dir := range dirs {
		_ = addDirSeeds(f, dir, exts) // a missing folder only means fewer seeds
	}
	fuzzAs(f, names...)
}

func FuzzDOCX(f *testing.F) { fuzzOffice(f, "f.docx") }
func FuzzPPTX(f *testing.F) { fuzzOffice(f, "f.pptx") }
func FuzzODT(f *testing.F)  { fuzzOffice(f, "f.odt", "f.ods") }
func FuzzXLSX(f *testing.F) { fuzzOffice(f, "f.xlsx") }
func FuzzPDF(f *testing.F)  { fuzzOffice(f, "f.pdf") }

// FuzzOfficeXML feeds arbitrary XML to the part walkers directly: a zip's bytes rarely survive
// mutation, so this is where the walkers meet odd markup.
func FuzzOfficeXML(f *testing.F) {
	f.Add([]byte(`<w:p><w:pPr><w:numPr><w:ilvl w:val="9"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>x</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="99999"/></w:tcPr></w:tc></w:tr></w:tbl>`))
	f.Add([]byte(`<office:body><office:spreadsheet><table:table table:name="S"><table:table-row table:number-rows-repeated="99999"><table:table-cell table:number-columns-repeated="99999"><text:p>a</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body>`))
	f.Add([]byte(`<p:sld><p:sp><p:nvPr><p:ph type="title"/></p:nvPr><a:p><a:t>T</a:t></a:p></p:sp><a:tbl><a:tr><a:tc gridSpan="3"><a:p><a:t>c</a:t></a:p></a:tc></a:tr></a:tbl></p:sld>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range []func([]byte) []byte{
			func(x []byte) []byte {
				return zipOfNoT(map[string][]byte{"word/document.xml": x, "word/numbering.xml": x, "word/styles.xml": x})
			},
			func(x []byte) []byte { return zipOfNoT(map[string][]byte{"content.xml": x, "meta.xml": x}) },
			func(x []byte) []byte { return zipOfNoT(map[string][]byte{"ppt/slides/slide1.xml": x}) },
		} {
			archive := mk(data)
			fuzzExtract(t, "f.docx", archive)
			fuzzExtract(t, "f.odt", archive)
			fuzzExtract(t, "f.ods", archive)
			fuzzExtract(t, "f.pptx", archive)
		}
	})
}
