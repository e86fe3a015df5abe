package chunk

import (
	"fmt"
	"testing"

	"github.com/citahq/cita/sync/extract"
)

// largeDocument is about 250,000 words of realistic structure: 100 sections of prose, lists, code and tables.
func largeDocument() *extract.Document {
	r := newRand(42)
	doc := &extract.Document{Title: "Manual de procedimientos"}
	for s := range 100 {
		sec := extract.Section{Path: []string{fmt.Sprintf("Capítulo %d", s), "Detalle"}}
		for range 20 {
			sec.Blocks = append(sec.Blocks, extract.Block{Kind: extract.Paragraph, Text: randomTextWithGiants(r, 60+r.IntN(120), 0)})
		}
		for i := range 10 {
			sec.Blocks = append(sec.Blocks, extract.Block{Kind: extract.ListItem, Level: i % 3, Text: randomTextWithGiants(r, 15, 0)})
		}
		sec.Blocks = append(sec.Blocks, extract.Block{Kind: extract.Code, Text: "for i := range n {\n\tsum += i\n}"})
		table := &extract.Table{Header: []string{"Código", "Concepto", "Importe"}, RowsAsRecords: s%2 == 0}
		for i := range 80 {
			table.Rows = append(table.Rows, []string{fmt.Sprintf("C%d", i), randomTextWithGiants(r, 6, 0), fmt.Sprint(i)})
		}
		sec.Blocks = append(sec.Blocks, extract.Block{Kind: extract.TableBlock, Table: table})
		doc.Sections = append(doc.Sections, sec)
	}
	return doc
}

func BenchmarkSplit(b *testing.B) {
	doc := largeDocument()
	pieces := 0
	b.ReportAllocs()
	for b.Loop() {
		pieces += len(Split(doc, Options{}))
	}
	b.ReportMetric(float64(pieces)/b.Elapsed().Seconds(), "pieces/s")
}
