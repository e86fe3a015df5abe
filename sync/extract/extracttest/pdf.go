package extracttest

import (
	"strings"

	"github.com/citahq/cita/sync/extract/internal/docwrite"
)

const (
	pdfTop       = 790
	pdfBottom    = 60
	pdfLeft      = 56
	pdfLineChars = 90 // characters of 10 pt Helvetica that fit in a 483 pt line
)

// pdfLayout lays d out on A4 pages: each section starts a page, its heading in 14 pt, paragraphs
// wrapped at pdfLineChars in 10 pt, bullets as "• item", and table rows with every cell drawn as
// its own text object at its column's x, with no space character between cells.
func pdfLayout(d Doc) [][]docwrite.PDFText {
	var pages [][]docwrite.PDFText
	var page []docwrite.PDFText
	y := pdfTop
	newPage := func() {
		if len(page) > 0 {
			pages = append(pages, page)
		}
		page, y = nil, pdfTop
	}
	line := func(x, size int, text string) {
		if y-size < pdfBottom {
			newPage()
		}
		page = append(page, docwrite.PDFText{X: x, Y: y, Size: size, Text: text})
	}
	for i, s := range d.Sections {
		if i > 0 {
			newPage()
		}
		if i == 0 && d.Title != "" {
			line(pdfLeft, 18, d.Title)
			y -= 30
		}
		if s.Heading != "" {
			line(pdfLeft, 14, s.Heading)
			y -= 24
		}
		for _, p := range s.Paragraphs {
			for _, l := range wrap(p, pdfLineChars) {
				line(pdfLeft, 10, l)
				y -= 14
			}
			y -= 8
		}
		for _, item := range s.Bullets {
			line(pdfLeft, 10, "• "+item)
			y -= 14
		}
		xs := columnXs(s.Table)
		for _, row := range s.Table {
			if y-10 < pdfBottom {
				newPage()
			}
			for c, cell := range row {
				page = append(page, docwrite.PDFText{X: xs[c], Y: y, Size: 10, Text: cell})
			}
			y -= 16
		}
	}
	newPage()
	if len(pages) == 0 {
		pages = [][]docwrite.PDFText{nil}
	}
	return pages
}

// columnXs places each column after the widest cell of the previous one plus a gap.
func columnXs(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for c, cell := range row {
			for len(widths) <= c {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	xs := make([]int, len(widths))
	x := pdfLeft
	for c, w := range widths {
		xs[c] = x
		x += min(w, 30)*6 + 18
	}
	return xs
}

func wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// BuildPDF writes d as a PDF in Helvetica (text must fit Windows-1252): each section starts a
// page, so a short section N is on page N. It returns an error for text outside Windows-1252.
func BuildPDF(d Doc) ([]byte, error) {
	return docwrite.PDF(pdfLayout(d), d.Title, d.Author)
}

// BuildEncryptedPDF writes d encrypted with the standard security handler, revision 2 (40-bit
// RC4) and user password "secreto": opening it needs the password. It returns an error for text
// outside Windows-1252.
func BuildEncryptedPDF(d Doc) ([]byte, error) {
	return docwrite.EncryptedPDF(pdfLayout(d), "cita extracttest")
}
