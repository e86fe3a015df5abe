package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/golden"
)

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

// checkGolden compares got with testdata/golden/<name>.golden (golden.Check: -update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name+".golden"), got)
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
