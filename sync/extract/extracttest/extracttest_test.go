package extracttest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/extract/extracttest"
)

var sample = extracttest.Doc{Title: "Tarifa de café", Author: "Ana Núñez", Sections: []extracttest.Section{
	{Heading: "Condiciones", Paragraphs: []string{"Los precios incluyen IVA y se revisan cada trimestre."}, Bullets: []string{"Pago a 30 días"}},
	{Heading: "Tarifa 2026", Table: [][]string{{"Referencia", "Código proveedor", "Importe"}, {"SKU-77812", "CAF-EXP-0042", "5.440.000"}}, Notes: "Revisar con compras."},
}}

// TestBuildRoundTrips checks that every builder writes a file the extractor reads back with the
// title, the table row's cells apart, and the section on its own page, slide or sheet.
func TestBuildRoundTrips(t *testing.T) {
	t.Parallel()
	wantLocator := map[extracttest.Format]string{extracttest.PDF: "p. 2", extracttest.PPTX: "slide 2", extracttest.XLSX: "sheet Tarifa 2026", extracttest.ODS: "sheet Tarifa 2026"}
	for _, f := range extracttest.Formats {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			data, err := extracttest.Build(f, sample)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := extract.Extract(context.Background(), "tarifa."+string(f), data, extract.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if f != extracttest.CSV && doc.Title != sample.Title {
				t.Errorf("title %q, want %q", doc.Title, sample.Title)
			}
			row := sample.Sections[1].Table[1]
			found := false
			for _, s := range doc.Sections {
				for _, b := range s.Blocks {
					switch {
					case b.Table != nil:
						found = found || slices.ContainsFunc(b.Table.Rows, func(r []string) bool { return slices.Equal(r, row) })
					case f == extracttest.PDF:
						found = found || strings.Contains(b.Text, strings.Join(row, " "))
					}
				}
				if found && wantLocator[f] != "" && s.Locator != wantLocator[f] {
					t.Errorf("row found under locator %q, want %q", s.Locator, wantLocator[f])
				}
				if found {
					break
				}
			}
			if !found {
				t.Errorf("row %q not extracted with its cells apart: %+v", row, doc.Sections)
			}
		})
	}
}

func TestEncryptedFilesAreRecognised(t *testing.T) {
	t.Parallel()
	pdf, err := extracttest.BuildEncryptedPDF(sample)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"p.pdf": pdf, "p.docx": extracttest.EncryptedOOXML()} {
		if _, err := extract.Extract(context.Background(), name, data, extract.Limits{}); !errors.Is(err, extract.ErrEncrypted) {
			t.Errorf("%s: got %v, want ErrEncrypted", name, err)
		}
	}
}

func TestBuildRejectsUnknownFormat(t *testing.T) {
	t.Parallel()
	if _, err := extracttest.Build("rtf", sample); err == nil {
		t.Fatal("no error for an unknown format")
	}
}
