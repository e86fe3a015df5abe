// Command fixturegen writes the small office documents that sync/extract's tests read from
// testdata/fixtures: a DOCX, PPTX, ODT, ODS, XLSX and two PDFs (one password-protected), all
// sharing one Spanish text with headings, lists and a table whose cell holds a lone product code.
//
//	go run ./sync/extract/internal/fixturegen -out sync/extract/testdata/fixtures
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// The shared content of every fixture.
const (
	docTitle  = "Manual de compras"
	docAuthor = "Ana Núñez"
	heading1  = "Proveedores"
	heading2  = "Alta de proveedor"
	intro     = "La solicitud se tramita en el área de Administración con un año de antelación."
	code      = "SKU-77812"
	notes     = "Recordar el plazo de 15 días."
)

var (
	numbered = []struct {
		level int
		text  string
	}{{0, "Pedir presupuesto"}, {1, "Comparar tres ofertas"}, {1, "Elegir la más económica"}, {0, "Aprobar el pedido"}}
	bullets = []string{"Teléfono", "Correo electrónico"}
	table   = [][]string{
		{"Código", "Descripción", "Precio"},
		{code, "Silla ergonómica", "149,00 €"},
		{"SKU-10001", "Mesa de reunión", "320,00 €"},
	}
)

func main() {
	out := flag.String("out", "testdata/fixtures", "directory to write the fixtures into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	makers := map[string]func() ([]byte, error){
		"manual.docx":           makeDOCX,
		"manual.pptx":           makePPTX,
		"manual.odt":            makeODT,
		"inventario.ods":        makeODS,
		"precios.xlsx":          makeXLSX,
		"manual.pdf":            makePDF,
		"manual-protegido.pdf":  makeEncryptedPDF,
		"manual-protegido.docx": makeEncryptedOOXML,
		"corrupto.docx":         func() ([]byte, error) { return []byte("PK\x03\x04 no es un zip"), nil },
		"sin-document-xml.docx": makeDOCXWithoutBody,
	}
	for name, mk := range makers {
		data, err := mk()
		if err != nil {
			return fmt.Errorf("make %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
