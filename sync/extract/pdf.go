package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
)

func init() { register(extractPDF, ".pdf") }

// extractPDF returns one section per page ("p. N") with the page's text split into paragraphs.
// The title comes from the PDF metadata, else from the first line of text.
func extractPDF(ctx context.Context, _ string, data []byte, _ Limits) (*Document, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrCorrupt)
	}
	doc := &Document{}
	err := withPdfium(ctx, func(p pdfium.Pdfium) error {
		opened, err := p.OpenDocument(&requests.OpenDocument{File: &data})
		if err != nil {
			return pdfOpenError(err)
		}
		defer func() { _, _ = p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document}) }()

		if meta, err := p.GetMetaData(&requests.GetMetaData{Document: opened.Document}); err == nil {
			for _, tag := range meta.Tags {
				switch tag.Tag {
				case "Title":
					doc.Title = cleanInline(tag.Value)
				case "Author":
					doc.Author = cleanInline(tag.Value)
				case "ModDate":
					doc.Modified = parsePDFDate(tag.Value)
				}
			}
		}
		count, err := p.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
		if err != nil {
			return fmt.Errorf("%w: count pages: %v", ErrCorrupt, err)
		}
		for i := 0; i < count.PageCount; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			page, err := p.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: opened.Document, Index: i}}})
			if err != nil {
				return fmt.Errorf("%w: page %d: %v", ErrCorrupt, i+1, err)
			}
			section := Section{Locator: fmt.Sprintf("p. %d", i+1)}
			for _, para := range pdfParagraphs(page.Text) {
				section.Blocks = append(section.Blocks, Block{Kind: Paragraph, Text: para})
			}
			doc.Sections = append(doc.Sections, section)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if doc.Title == "" {
		doc.Title = firstLine(doc)
	}
	return doc, nil
}

func pdfOpenError(err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("%w: pdf needs a password", ErrEncrypted)
	default:
		return fmt.Errorf("%w: open pdf: %v", ErrCorrupt, err)
	}
}

// firstLine returns the first line of the first paragraph, when it is short enough to be a title.
func firstLine(doc *Document) string {
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			line, _, _ := strings.Cut(b.Text, "\n")
			if t, ok := titleLine(line); ok {
				return t
			}
			return ""
		}
	}
	return ""
}

// parsePDFDate reads "D:20260314101500+01'00'" and its shorter forms; zero when it cannot.
func parsePDFDate(s string) time.Time {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	s = strings.ReplaceAll(s, "'", "")
	for _, layout := range []string{"20060102150405-0700", "20060102150405Z", "20060102150405", "200601021504", "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	if len(s) >= 14 {
		if t, err := time.Parse("20060102150405", s[:14]); err == nil {
			return t
		}
	}
	return time.Time{}
}
