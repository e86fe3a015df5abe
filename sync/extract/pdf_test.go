package extract

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
)

// TestPDFDeadlineKillsInstance: when the context ends during a pdfium call the instance is
// killed, the caller gets the context's error, and the pool keeps working afterwards.
func TestPDFDeadlineKillsInstance(t *testing.T) {
	data := readFixture(t, filepath.Join("testdata", "fixtures"), "manual.pdf")
	ctx, cancel := context.WithCancel(context.Background())
	err := withPdfium(ctx, func(p pdfium.Pdfium) error {
		cancel()
		time.Sleep(20 * time.Millisecond) // let the kill land
		_, err := p.OpenDocument(&requests.OpenDocument{File: &data})
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	doc, err := Extract(context.Background(), "manual.pdf", data, DefaultLimits())
	if err != nil {
		t.Fatalf("pool unusable after a kill: %v", err)
	}
	if doc.Title != "Manual de compras" {
		t.Errorf("title = %q", doc.Title)
	}
}

func TestPDFTimeout(t *testing.T) {
	t.Parallel()
	data := readFixture(t, filepath.Join("testdata", "fixtures"), "manual.pdf")
	_, err := Extract(context.Background(), "manual.pdf", data, Limits{Timeout: time.Nanosecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestParsePDFDate(t *testing.T) {
	t.Parallel()
	tests := map[string]time.Time{
		"D:20260314100000Z":       time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC),
		"D:20260314100000+01'00'": time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC),
		"D:20260314":              time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC),
		"no es una fecha":         {},
	}
	for in, want := range tests {
		if got := parsePDFDate(in); !got.Equal(want) {
			t.Errorf("parsePDFDate(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPDFParagraphs(t *testing.T) {
	t.Parallel()
	text := "Título corto\r\nEsta es una línea larga de un párrafo que sigue y se\r\ncorta con guion en pala\u0002bra y termina aquí, bien lejos.\r\nFin.\r\n\r\nOtro párrafo tras una línea en blanco."
	got := pdfParagraphs(text)
	want := []string{
		"Título corto",
		"Esta es una línea larga de un párrafo que sigue y se corta con guion en palabra y termina aquí, bien lejos. Fin.",
		"Otro párrafo tras una línea en blanco.",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("paragraph %d = %q, want %q", i, got[i], want[i])
		}
	}
}
