package extract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

//go:generate go run ./internal/fixturegen -out testdata/fixtures

// expectedFixtureErrors lists the generated fixtures that must fail, with the typed error.
var expectedFixtureErrors = map[string]error{
	"manual-protegido.pdf":  ErrEncrypted,
	"manual-protegido.docx": ErrEncrypted,
	"corrupto.docx":         ErrCorrupt,
	"sin-document-xml.docx": ErrCorrupt,
}

func readFixture(t testing.TB, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGeneratedFixtures extracts every file that internal/fixturegen wrote: the documents match
// their golden dumps and the broken ones fail with their typed error, naming the file.
func TestGeneratedFixtures(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "fixtures")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			doc, err := Extract(context.Background(), e.Name(), readFixture(t, dir, e.Name()), DefaultLimits())
			if want, ok := expectedFixtureErrors[e.Name()]; ok {
				checkFileError(t, err, want, e.Name(), "")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, doc)
			checkGolden(t, "fixture-"+e.Name(), dumpDocument(doc))
		})
	}
}

// cellsAlone reports whether some table cell holds exactly want.
func cellAlone(doc *Document, want string) bool {
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Kind != TableBlock {
				continue
			}
			if slices.Contains(b.Table.Header, want) {
				return true
			}
			for _, row := range b.Table.Rows {
				if slices.Contains(row, want) {
					return true
				}
			}
		}
	}
	return false
}

// TestGeneratedFixturesContent checks, format by format, what a person reading the document
// sees: the product code alone in its cell, accents, heading paths, list numbering and levels.
func TestGeneratedFixturesContent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "fixtures")
	tests := []struct {
		file      string
		wantTitle string
		wantDump  []string // lines or fragments of the dump
	}{
		{"manual.docx", "Manual de compras", []string{
			"== Proveedores > Alta de proveedor\nL0: 1. Pedir presupuesto\n  L1: a) Comparar tres ofertas\n  L1: b) Elegir la más económica\nL0: 2. Aprobar el pedido\nL0: Teléfono",
			"H: Código | Descripción | Precio", "área de Administración",
		}},
		{"manual.odt", "Manual de compras", []string{
			"== Proveedores > Alta de proveedor\nL0: 1. Pedir presupuesto\n  L1: a) Comparar tres ofertas",
			"H: Código | Descripción | Precio\n", "el área de Administración con un año de antelación.\n",
		}},
		{"manual.pptx", "Manual de compras", []string{
			"== Alta de proveedor [slide 2]", "P: Notes: Recordar el plazo de 15 días.",
			"== Diapositiva 9 [slide 9]\nL0: Contenido 9\n\n== Diapositiva 10 [slide 10]", "  L1: Comparar tres ofertas",
		}},
		{"precios.xlsx", "Tarifa de precios", []string{
			"== Precios [sheet Precios]\nTABLE (records, 3 rows)\n  H: Categoría | Código | Descripción | Precio | Alta",
			"R: Mobiliario | SKU-10001 | Mesa de reunión | 1,320.50 € | 01/12/2025", "== Resumen [sheet Resumen]",
		}},
		{"inventario.ods", "Manual de compras", []string{"== Inventario [sheet Inventario]\nTABLE (records, 2 rows)\n  H: Almacén | Código | Unidades\n"}},
		{"manual.pdf", "Manual de compras", []string{"== (no heading) [p. 1]", "el área de Administración con un año", "== (no heading) [p. 2]", "149,00 €"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			doc, err := Extract(context.Background(), tt.file, readFixture(t, dir, tt.file), DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			dump := dumpDocument(doc)
			if doc.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", doc.Title, tt.wantTitle)
			}
			if doc.Author != "Ana Núñez" || doc.Modified.IsZero() {
				t.Errorf("author %q modified %v, want Ana Núñez and a date", doc.Author, doc.Modified)
			}
			if !strings.HasSuffix(tt.file, ".pdf") && !cellAlone(doc, "SKU-77812") {
				t.Errorf("SKU-77812 is not alone in a table cell:\n%s", dump)
			}
			// Never: deleted, footnote, hidden or broken text.
			checkDump(t, dump, tt.wantDump, []string{"Compras", "Nota al pie", "no debe salir", "\uFFFD"})
		})
	}
}
