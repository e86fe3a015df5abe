// Package officebench measures indexing a folder of mixed office files: it writes a realistic
// folder (DOCX, XLSX, PPTX, ODT, PDF, HTML, CSV and Markdown in the proportions of a shared drive,
// sizes spread over two orders of magnitude) and samples the process's memory while the caller
// indexes it, to report files/s, chunks/s and peak memory.
package officebench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/citahq/cita/sync/extract/extracttest"
)

// mix is the share of each format in a generated folder, in files per 100.
var mix = []struct {
	format extracttest.Format
	per100 int
}{
	{extracttest.DOCX, 22}, {extracttest.PDF, 20}, {extracttest.XLSX, 15}, {extracttest.PPTX, 10},
	{extracttest.ODT, 8}, {extracttest.HTML, 10}, {extracttest.CSV, 7}, {extracttest.Markdown, 8},
}

// Folder describes a generated folder.
type Folder struct {
	Dir          string
	Files        int
	Bytes        int64
	ByFormat     map[extracttest.Format]int
	Largest      string // relative path of the largest file
	LargestBytes int64
}

// Generate writes n files into dir (created when missing) under a few department folders. The same
// seed writes the same files. It returns an error when a file cannot be built or written, or when
// ctx ends.
func Generate(ctx context.Context, dir string, n int, seed uint64) (*Folder, error) {
	if n <= 0 {
		return nil, fmt.Errorf("generate: %d files requested, want at least 1", n)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := &Folder{Dir: dir, ByFormat: map[extracttest.Format]int{}}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w := &writer{rng: rng, english: rng.IntN(4) == 0}
		format := pickFormat(rng)
		data, err := extracttest.Build(format, w.document(format))
		if err != nil {
			return nil, fmt.Errorf("generate file %d (%s): %w", i, format, err)
		}
		rel := filepath.Join(pick(w, areas), fmt.Sprintf("doc-%05d.%s", i, format))
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		out.Files++
		out.Bytes += int64(len(data))
		out.ByFormat[format]++
		if int64(len(data)) > out.LargestBytes {
			out.Largest, out.LargestBytes = filepath.ToSlash(rel), int64(len(data))
		}
	}
	return out, nil
}

func pickFormat(rng *rand.Rand) extracttest.Format {
	r := rng.IntN(100)
	for _, m := range mix {
		if r < m.per100 {
			return m.format
		}
		r -= m.per100
	}
	return mix[0].format
}

// document draws a document shaped for its format: spreadsheets and CSV are mostly tables,
// presentations many short slides, text formats sections of prose with the odd list or table.
// Section counts, paragraph counts and table lengths are log-uniform, so most files are a few
// KB and a few reach several hundred KB.
func (w *writer) document(f extracttest.Format) extracttest.Doc {
	d := extracttest.Doc{Title: w.title(), Author: pick(w, names)}
	switch f {
	case extracttest.CSV:
		d.Sections = []extracttest.Section{{Table: w.table(w.logUniform(5, 3000))}}
	case extracttest.XLSX, extracttest.ODS:
		for i := range w.logUniform(1, 6) {
			d.Sections = append(d.Sections, extracttest.Section{Heading: fmt.Sprintf("%s %d", pick(w, headingsES), i+1), Table: w.table(w.logUniform(3, 1500))})
		}
	case extracttest.PPTX:
		for i := range w.logUniform(3, 60) {
			s := extracttest.Section{Heading: w.heading(i)}
			for range 1 + w.rng.IntN(5) {
				s.Bullets = append(s.Bullets, w.sentence())
			}
			if w.rng.IntN(3) == 0 {
				s.Notes = w.paragraph()
			}
			if w.rng.IntN(6) == 0 {
				s.Table = w.table(2 + w.rng.IntN(6))
			}
			d.Sections = append(d.Sections, s)
		}
	default:
		for i := range w.logUniform(1, 40) {
			s := extracttest.Section{Heading: w.heading(i)}
			for range w.logUniform(1, 8) {
				s.Paragraphs = append(s.Paragraphs, w.paragraph())
			}
			if w.rng.IntN(4) == 0 {
				for range 2 + w.rng.IntN(5) {
					s.Bullets = append(s.Bullets, w.sentence())
				}
			}
			if w.rng.IntN(4) == 0 {
				s.Table = w.table(w.logUniform(2, 120))
			}
			d.Sections = append(d.Sections, s)
		}
	}
	return d
}

func (w *writer) title() string {
	if w.english {
		return pick(w, headingsEN) + ": " + pick(w, objectsEN)
	}
	return pick(w, headingsES) + " de " + pick(w, objectsES)
}
