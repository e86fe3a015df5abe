package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citahq/cita/sync/extract"
)

func tableDoc(t *extract.Table) *extract.Document {
	return &extract.Document{Title: "Tarifas", Sections: []extract.Section{{
		Path: []string{"2026"}, Locator: "sheet 2026",
		Blocks: []extract.Block{{Kind: extract.TableBlock, Table: t}},
	}}}
}

func TestSplitSmallMarkdownTable(t *testing.T) {
	t.Parallel()
	table := &extract.Table{
		Header: []string{"Código", "Descripción"},
		Rows:   [][]string{{"A1", "Alta | baja"}, {"B2"}, {"", ""}, {"C3", "multi\nlínea", "extra"}},
	}
	pieces := Split(tableDoc(table), Options{})
	want := "| Código | Descripción |  |\n| --- | --- | --- |\n| A1 | Alta \\| baja |  |\n| B2 |  |  |\n| C3 | multi línea | extra |"
	if len(pieces) != 1 || pieces[0].Content != want {
		t.Fatalf("Split() = %#v, want one piece with\n%s", pieces, want)
	}
	if pieces[0].Locator != "sheet 2026" {
		t.Errorf("Locator = %q, want %q", pieces[0].Locator, "sheet 2026")
	}
}

func TestSplitRowsAsRecords(t *testing.T) {
	t.Parallel()
	table := &extract.Table{
		Header:        []string{"Código", "Nombre", "Importe"},
		Rows:          [][]string{{"X9", "Cuota", "12,50"}, {"Y7", "", "3"}, {"Z1", "Sin columna", "1", "sobrante"}},
		RowsAsRecords: true,
	}
	pieces := Split(tableDoc(table), Options{})
	want := "Código: X9 | Nombre: Cuota | Importe: 12,50\n" +
		"Código: Y7 | Importe: 3\n" +
		"Código: Z1 | Nombre: Sin columna | Importe: 1 | sobrante"
	if len(pieces) != 1 || pieces[0].Content != want {
		t.Fatalf("Split() = %#v, want one piece with\n%s", pieces, want)
	}
}

func TestSplitLargeTableRepeatsHeader(t *testing.T) {
	t.Parallel()
	for _, records := range []bool{false, true} {
		t.Run(fmt.Sprintf("records=%v", records), func(t *testing.T) {
			t.Parallel()
			table := &extract.Table{Header: []string{"Código", "Concepto", "Importe"}, RowsAsRecords: records}
			for i := range 200 {
				table.Rows = append(table.Rows, []string{fmt.Sprintf("C%03d", i), "Concepto de prueba número " + fmt.Sprint(i), fmt.Sprint(i * 7)})
			}
			opts := Options{TargetTokens: 120, MaxTokens: 180}
			pieces := Split(tableDoc(table), opts)
			if len(pieces) < 3 {
				t.Fatalf("got %d pieces, want the table split", len(pieces))
			}
			next := 0 // rows must appear once each, in order, with no overlap between table pieces
			for i, p := range pieces {
				if p.Tokens > opts.MaxTokens {
					t.Errorf("piece %d has %d tokens, cap %d", i, p.Tokens, opts.MaxTokens)
				}
				lines := strings.Split(p.Content, "\n")
				if !records {
					if len(lines) < 3 || lines[0] != "| Código | Concepto | Importe |" || lines[1] != "| --- | --- | --- |" {
						t.Fatalf("piece %d does not start with the header: %q", i, p.Content)
					}
					lines = lines[2:]
				}
				for _, line := range lines {
					code := fmt.Sprintf("C%03d", next)
					wantPrefix := "| " + code + " |"
					if records {
						wantPrefix = "Código: " + code + " | Concepto: "
					}
					if !strings.HasPrefix(line, wantPrefix) {
						t.Fatalf("piece %d: line %q, want row %s next", i, line, code)
					}
					next++
				}
			}
			if next != len(table.Rows) {
				t.Errorf("pieces hold %d rows, want %d", next, len(table.Rows))
			}
		})
	}
}

func TestSplitGiantTableCell(t *testing.T) {
	t.Parallel()
	giant := strings.Repeat("palabra ", 500) + strings.Repeat("x", 3000)
	table := &extract.Table{Header: []string{"Código", "Nota"}, Rows: [][]string{{"A1", "corta"}, {"B2", giant}, {"C3", "otra"}}}
	opts := Options{TargetTokens: 100, MaxTokens: 150}
	pieces := Split(tableDoc(table), opts)
	sawB2, giantParts := false, 0
	for i, p := range pieces {
		if p.Tokens > opts.MaxTokens {
			t.Errorf("piece %d has %d tokens, cap %d", i, p.Tokens, opts.MaxTokens)
		}
		if strings.HasPrefix(p.Content, "Nota: ") {
			giantParts++
		}
		sawB2 = sawB2 || p.Content == "Código: B2"
	}
	if !sawB2 || giantParts < 10 {
		t.Errorf("oversized row: code part found %v, %d labelled parts of the giant cell; want the code and many parts", sawB2, giantParts)
	}
	if !strings.Contains(pieces[0].Content, "| A1 | corta |") || !strings.Contains(pieces[len(pieces)-1].Content, "| C3 | otra |") {
		t.Errorf("rows around the oversized one lost their Markdown form: first %q, last %q", pieces[0].Content, pieces[len(pieces)-1].Content)
	}
}
