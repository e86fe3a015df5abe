package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds adds every file in testdata/input with one of exts to the fuzz corpus.
func addSeeds(f *testing.F, exts ...string) {
	if err := addDirSeeds(f, filepath.Join("testdata", "input"), exts); err != nil {
		f.Fatal(err)
	}
}

// addDirSeeds adds every file in dir with one of exts to the fuzz corpus. It returns the error
// of reading dir; a file that cannot be read fails the target.
func addDirSeeds(f *testing.F, dir string, exts []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		for _, ext := range exts {
			if strings.HasSuffix(e.Name(), ext) {
				data, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data)
			}
		}
	}
	return nil
}

// fuzzAs fuzzes Extract with each input under every name in names: the extension picks the
// extractor.
func fuzzAs(f *testing.F, names ...string) {
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range names {
			fuzzExtract(t, name, data)
		}
	})
}

// fuzzExtract runs Extract on arbitrary bytes: it must not panic, must fail only with one of the
// package's typed errors, and must return a document that keeps every invariant.
func fuzzExtract(t *testing.T, name string, data []byte) {
	doc, err := Extract(context.Background(), name, data, Limits{MaxFileBytes: 1 << 20})
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrEncrypted) {
			t.Fatalf("untyped error: %v", err)
		}
		return
	}
	checkInvariants(t, doc)
}

func FuzzMarkdown(f *testing.F) {
	addSeeds(f, ".md")
	f.Add([]byte("---\ntitle: [\n---\n# x"))
	f.Add([]byte("- a\n  - b\n    - c\n\n| a |\n|---|\n| b | c |\n"))
	fuzzAs(f, "f.md")
}

func FuzzHTML(f *testing.F) {
	addSeeds(f, ".html")
	f.Add([]byte("<table><tr><td><table><tr><th>x</table></td></tr></table><ol><li><ul><li>a"))
	fuzzAs(f, "f.html")
}

func FuzzCSV(f *testing.F) {
	addSeeds(f, ".csv", ".tsv")
	f.Add([]byte("a,\"b\nc\"\"\n,,,\n"))
	fuzzAs(f, "f.csv", "f.tsv")
}

func FuzzPlainText(f *testing.F) {
	addSeeds(f, ".txt")
	fuzzAs(f, "f.txt")
}
