package extract

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
)

func TestProbeRaw(t *testing.T) {
	f := os.Getenv("PROBE_FILE")
	if f == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(f)
	withPdfium(context.Background(), func(p pdfium.Pdfium) error {
		d, err := p.OpenDocument(&requests.OpenDocument{File: &data})
		if err != nil {
			t.Fatal(err)
		}
		pt, err := p.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d.Document, Index: 0}}})
		fmt.Printf("%q\n", pt.Text[:1500])
		return err
	})
}
