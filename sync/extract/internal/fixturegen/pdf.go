package main

import (
	"fmt"
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

// pdfPages lays the manual out on two pages of lines at the left margin, each line below the
// previous one by its font size plus 12 points.
func pdfPages() [][]docwrite.PDFText {
	type line struct {
		size int
		text string
	}
	page1 := []line{{20, docTitle}, {14, heading1}, {11, intro}, {14, heading2}}
	top := 0
	for _, item := range numbered {
		label := "   -"
		if item.level == 0 {
			top++
			label = fmt.Sprintf("%d.", top)
		}
		page1 = append(page1, line{11, label + " " + item.text})
	}
	page2 := []line{{14, "Tarifa"}}
	for _, row := range table {
		page2 = append(page2, line{11, strings.Join(row, "   ")})
	}
	var pages [][]docwrite.PDFText
	for _, lines := range [][]line{page1, page2} {
		var page []docwrite.PDFText
		y := 780
		for _, l := range lines {
			page = append(page, docwrite.PDFText{X: 56, Y: y, Size: l.size, Text: l.text})
			y -= l.size + 12
		}
		pages = append(pages, page)
	}
	return pages
}

func makePDF() ([]byte, error) { return docwrite.PDF(pdfPages(), docTitle, docAuthor) }

// makeEncryptedPDF writes the same document encrypted (docwrite.EncryptedPDF): opening it needs
// the password.
func makeEncryptedPDF() ([]byte, error) { return docwrite.EncryptedPDF(pdfPages(), "cita fixture") }
