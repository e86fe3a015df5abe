package indexer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citahq/cita/sync/extract/extracttest"
)

// officeCase is one format's document: a price table whose data row holds three codes, each
// alone in its cell, next to rows with other codes.
type officeCase struct {
	format  extracttest.Format
	file    string
	sku     string // "SKU-77810"
	caf     string // "CAF-DOCX-0042"
	amount  string // "5.440.000"
	locator string // where the table sits: "p. 2", "sheet Tarifa 2026", "slide 2"; "" for unpaged formats
}

func (c officeCase) codes() []string { return []string{c.sku, c.caf, c.amount} }

// glued is what a chunker that lost the cell separator would index.
func (c officeCase) glued() string { return c.sku + c.caf }

func officeCases() []officeCase {
	locators := map[extracttest.Format]string{
		extracttest.PDF: "p. 2", extracttest.PPTX: "slide 2",
		extracttest.XLSX: "sheet Tarifa 2026", extracttest.ODS: "sheet Tarifa 2026",
	}
	var cases []officeCase
	for i, f := range extracttest.Formats {
		cases = append(cases, officeCase{
			format:  f,
			file:    "tarifa-" + string(f) + "." + string(f),
			sku:     fmt.Sprintf("SKU-%d", 77810+i),
			caf:     fmt.Sprintf("CAF-%s-%04d", strings.ToUpper(string(f)), 42+i),
			amount:  fmt.Sprintf("5.440.%03d", 100+i),
			locator: locators[f],
		})
	}
	return cases
}

// gluedFile is the case's control: the same document in the same format, but with the SKU and
// the supplier code glued into one cell, as an index with the classic bug would hold them.
func (c officeCase) gluedFile() string {
	return "tarifa-" + string(c.format) + "-pegada." + string(c.format)
}

func (c officeCase) doc(i int) extracttest.Doc {
	return c.docWithRow(i, []string{c.sku, c.caf, c.amount})
}

// gluedDoc is doc with the code cells glued and another amount, so only the glued token tells the
// two documents apart.
func (c officeCase) gluedDoc(i int) extracttest.Doc {
	return c.docWithRow(i, []string{c.glued(), "PENDIENTE", fmt.Sprintf("6.120.%03d", 100+i)})
}

func (c officeCase) docWithRow(i int, row []string) extracttest.Doc {
	return extracttest.Doc{
		Title:  "Tarifa de proveedores " + strings.ToUpper(string(c.format)),
		Author: "Ana Núñez",
		Sections: []extracttest.Section{
			{
				Heading:    "Condiciones",
				Paragraphs: []string{"Los importes se expresan en pesos e incluyen el transporte hasta el almacén central."},
				Bullets:    []string{"Pago a treinta días", "Revisión trimestral de la tarifa"},
			},
			{
				Heading: "Tarifa 2026",
				Table: [][]string{
					{"Referencia", "Código proveedor", "Importe"},
					{fmt.Sprintf("SKU-%d", 20000+i), fmt.Sprintf("CAF-MOL-%04d", 300+i), "120.500"},
					row,
					{fmt.Sprintf("SKU-%d", 30000+i), fmt.Sprintf("CAF-DES-%04d", 600+i), "98.000"},
				},
				Notes: "Confirmar la tarifa con compras antes de publicarla.",
			},
		},
	}
}

// writeOfficeFolder writes every case's document and its glued control, a corrupt DOCX and
// password-protected PDF and XLSX files into a new folder.
func writeOfficeFolder(t *testing.T, cases []officeCase) string {
	t.Helper()
	root := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cases {
		for name, doc := range map[string]extracttest.Doc{c.file: c.doc(i), c.gluedFile(): c.gluedDoc(i)} {
			data, err := extracttest.Build(c.format, doc)
			if err != nil {
				t.Fatalf("build %s: %v", name, err)
			}
			write(name, data)
		}
	}
	write("roto.docx", []byte("PK\x03\x04 esto no es un zip"))
	protectedPDF, err := extracttest.BuildEncryptedPDF(cases[0].doc(0))
	if err != nil {
		t.Fatal(err)
	}
	write("protegido.pdf", protectedPDF)
	write("protegido.xlsx", extracttest.EncryptedOOXML())
	return root
}
