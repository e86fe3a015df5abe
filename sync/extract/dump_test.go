package extract

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// dumpDocument renders a Document as readable text for golden files: one line per block, with
// its kind, list level and the section path above it.
func dumpDocument(doc *Document) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "title: %s\n", doc.Title)
	if doc.Author != "" {
		fmt.Fprintf(&sb, "author: %s\n", doc.Author)
	}
	if !doc.Modified.IsZero() {
		fmt.Fprintf(&sb, "modified: %s\n", doc.Modified.UTC().Format(time.RFC3339))
	}
	for _, s := range doc.Sections {
		path := strings.Join(s.Path, " > ")
		if path == "" {
			path = "(no heading)"
		}
		fmt.Fprintf(&sb, "\n== %s", path)
		if s.Locator != "" {
			fmt.Fprintf(&sb, " [%s]", s.Locator)
		}
		sb.WriteString("\n")
		for _, b := range s.Blocks {
			dumpBlock(&sb, b)
		}
	}
	return sb.String()
}

func dumpBlock(sb *strings.Builder, b Block) {
	indentLines := func(prefix, text string) {
		lines := strings.Split(text, "\n")
		fmt.Fprintf(sb, "%s%s\n", prefix, lines[0])
		pad := strings.Repeat(" ", len(prefix))
		for _, l := range lines[1:] {
			fmt.Fprintf(sb, "%s%s\n", pad, l)
		}
	}
	switch b.Kind {
	case Paragraph:
		indentLines("P: ", b.Text)
	case ListItem:
		indentLines(fmt.Sprintf("%sL%d: ", strings.Repeat("  ", b.Level), b.Level), b.Text)
	case Code:
		indentLines("CODE: ", b.Text)
	case TableBlock:
		mode := "markdown"
		if b.Table.RowsAsRecords {
			mode = "records"
		}
		fmt.Fprintf(sb, "TABLE (%s, %d rows)\n", mode, len(b.Table.Rows))
		fmt.Fprintf(sb, "  H: %s\n", strings.Join(b.Table.Header, " | "))
		for _, row := range b.Table.Rows {
			fmt.Fprintf(sb, "  R: %s\n", strings.Join(row, " | "))
		}
	default:
		fmt.Fprintf(sb, "?%d: %q\n", b.Kind, b.Text)
	}
}

// checkDump reports each string of want that dump lacks and each string of unwanted it holds.
func checkDump(t *testing.T, dump string, want, unwanted []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(dump, s) {
			t.Errorf("dump lacks %q:\n%s", s, dump)
		}
	}
	for _, s := range unwanted {
		if strings.Contains(dump, s) {
			t.Errorf("dump has %q:\n%s", s, dump)
		}
	}
}

// checkGolden compares got with testdata/golden/<name>.golden, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -run %s -update to create it): %v", t.Name(), err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden %s (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// TestGolden extracts every file in testdata/input and compares its dump with the golden file.
func TestGolden(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("testdata", "input"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "input", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Extract(context.Background(), e.Name(), data, DefaultLimits())
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			checkInvariants(t, doc)
			checkGolden(t, e.Name(), dumpDocument(doc))
		})
	}
}
