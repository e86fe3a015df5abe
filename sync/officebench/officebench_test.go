package officebench_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/extract/extracttest"
	"github.com/citahq/cita/sync/officebench"
)

// TestGenerateWritesExtractableMixedFolder checks that every generated file extracts, that the
// formats come in the intended mix, and that the same seed writes the same bytes.
func TestGenerateWritesExtractableMixedFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	folder, err := officebench.Generate(ctx, dir, 120, 7)
	if err != nil {
		t.Fatal(err)
	}
	if folder.Files != 120 || folder.LargestBytes <= 0 || folder.Bytes < folder.LargestBytes {
		t.Fatalf("folder %+v", folder)
	}
	for _, f := range []extracttest.Format{extracttest.DOCX, extracttest.PDF, extracttest.XLSX, extracttest.PPTX, extracttest.HTML} {
		if folder.ByFormat[f] < 5 {
			t.Errorf("only %d %s files of 120: %v", folder.ByFormat[f], f, folder.ByFormat)
		}
	}
	seen := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		seen++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		doc, err := extract.Extract(ctx, d.Name(), data, extract.Limits{})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if len(doc.Sections) == 0 {
			t.Errorf("%s: no text extracted", path)
		}
		return nil
	})
	if err != nil || seen != 120 {
		t.Fatalf("walked %d files: %v", seen, err)
	}

	again := t.TempDir()
	if _, err := officebench.Generate(ctx, again, 10, 7); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, folder.Largest))
	matches, _ := filepath.Glob(filepath.Join(again, "*", "doc-00003.*"))
	orig, _ := filepath.Glob(filepath.Join(dir, "*", "doc-00003.*"))
	if len(matches) != 1 || len(orig) != 1 || strings.TrimPrefix(matches[0], again) != strings.TrimPrefix(orig[0], dir) {
		t.Fatalf("same seed, different file names: %v vs %v", matches, orig)
	}
	a, _ := os.ReadFile(matches[0])
	b, _ := os.ReadFile(orig[0])
	if !bytes.Equal(a, b) || len(first) == 0 {
		t.Error("same seed wrote different bytes")
	}
}

func TestGenerateRejectsZeroFiles(t *testing.T) {
	t.Parallel()
	if _, err := officebench.Generate(context.Background(), t.TempDir(), 0, 1); err == nil {
		t.Fatal("no error for 0 files")
	}
}

// TestMeterSeesAnAllocation holds 64 MiB while the meter runs: its heap and RSS peaks must
// include it.
func TestMeterSeesAnAllocation(t *testing.T) {
	const size = 64 << 20
	m := officebench.StartMeter(5 * time.Millisecond)
	buf := make([]byte, size)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // touch every page so it is resident
	}
	time.Sleep(30 * time.Millisecond)
	peaks := m.Stop()
	runtime.KeepAlive(buf)
	if peaks.HeapBytes < size || peaks.GoTotalBytes < size {
		t.Errorf("heap peak %d, Go total peak %d; want both >= %d", peaks.HeapBytes, peaks.GoTotalBytes, size)
	}
	if runtime.GOOS == "linux" && peaks.RSSBytes < size {
		t.Errorf("RSS peak %d < %d", peaks.RSSBytes, size)
	}
	r := officebench.NewResult(10, 1, 40, 2*time.Second, peaks)
	if r.FilesPerS != 5 || r.ChunksPerS != 20 || !strings.Contains(r.String(), "5.0 files/s") {
		t.Errorf("result %+v: %s", r, r)
	}
}
