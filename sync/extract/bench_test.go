package extract

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExtract extracts every generated fixture (and the shared office files when
// CITA_SHARED_DIR is set) once per iteration and reports files per second.
func BenchmarkExtract(b *testing.B) {
	type file struct {
		name string
		data []byte
	}
	var files []file
	dirs := []string{filepath.Join("testdata", "fixtures"), filepath.Join("testdata", "input")}
	if shared := os.Getenv("CITA_SHARED_DIR"); shared != "" {
		dirs = append(dirs, filepath.Join(shared, "fixtures", "office"))
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, file{e.Name(), readFixture(b, dir, e.Name())})
		}
	}
	ctx := context.Background()
	_, _ = Extract(ctx, "warm.pdf", files[0].data, DefaultLimits()) // start pdfium outside the timing
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			_, _ = Extract(ctx, f.name, f.data, DefaultLimits())
		}
	}
	b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "files/s")
}
