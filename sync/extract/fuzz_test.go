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
	entries, err := os.ReadDir(filepath.Join("testdata", "input"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		for _, ext := range exts {
			if strings.HasSuffix(e.Name(), ext) {
				data, err := os.ReadFile(filepath.Join("testdata", "input", e.Name()))
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data)
			}
		}
	}
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
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.md", data) })
}

func FuzzHTML(f *testing.F) {
	addSeeds(f, ".html")
	f.Add([]byte("<table><tr><td><table><tr><th>x</table></td></tr></table><ol><li><ul><li>a"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.html", data) })
}

func FuzzCSV(f *testing.F) {
	addSeeds(f, ".csv", ".tsv")
	f.Add([]byte("a,\"b\nc\"\"\n,,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzExtract(t, "f.csv", data)
		fuzzExtract(t, "f.tsv", data)
	})
}

func FuzzPlainText(f *testing.F) {
	addSeeds(f, ".txt")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.txt", data) })
}
