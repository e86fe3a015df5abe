package officebench

import (
	"context"
	"fmt"

	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/extract/extracttest"
)

// WarmUp extracts one small PDF so pdfium's WebAssembly module is compiled (or loaded from the
// compilation cache) before measuring: the first PDF of a process pays that once, seconds and
// a few hundred MB of transient heap on a machine without the cache. It returns the extractor's
// error.
func WarmUp(ctx context.Context) error {
	data, err := extracttest.BuildPDF(extracttest.Doc{Title: "warm-up", Sections: []extracttest.Section{{Paragraphs: []string{"warm-up"}}}})
	if err != nil {
		return err
	}
	if _, err := extract.Extract(ctx, "warm-up.pdf", data, extract.Limits{}); err != nil {
		return fmt.Errorf("warm up pdfium: %w", err)
	}
	return nil
}
