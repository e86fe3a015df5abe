package chunk

import (
	"reflect"
	"strings"
	"testing"

	"github.com/citahq/cita/sync/extract"
)

// documentFromBytes builds a document from fuzz input: "\x00" separates sections, "\x01" blocks; a
// block's first byte picks its kind and level, and table blocks split cells on "\t" and rows on "\n".
func documentFromBytes(title, data string) *extract.Document {
	doc := &extract.Document{Title: title}
	for i, secText := range strings.Split(data, "\x00") {
		sec := extract.Section{Locator: "p. 1"}
		if i > 0 {
			sec.Path = []string{title, secText[:min(len(secText), 12)]}
		}
		for _, blk := range strings.Split(secText, "\x01") {
			if blk == "" {
				continue
			}
			b := extract.Block{Kind: extract.BlockKind(blk[0] % 4), Level: int(blk[0]) - 100, Text: blk[1:]}
			if b.Kind == extract.TableBlock {
				lines := strings.Split(b.Text, "\n")
				b.Table = &extract.Table{Header: strings.Split(lines[0], "\t"), RowsAsRecords: blk[0]%8 == 3}
				for _, line := range lines[1:] {
					b.Table.Rows = append(b.Table.Rows, strings.Split(line, "\t"))
				}
				b.Text = ""
			}
			sec.Blocks = append(sec.Blocks, b)
		}
		doc.Sections = append(doc.Sections, sec)
	}
	return doc
}

func FuzzSplit(f *testing.F) {
	f.Add("Manual", "\x00Texto corto.\x01- uno\x01\x03a\tb\n1\t2\n3\t4", 0, 0)
	f.Add("T", strings.Repeat("palabra. ", 300)+"\x00"+strings.Repeat("x", 2000), 40, 60)
	f.Add(strings.Repeat("Título largo ", 50), "\x02func f() {\n\treturn 1\n}\x01\x07h1\th2\nv\t"+strings.Repeat("w ", 400), 5, 7)
	f.Add("", "\xff\xfe\x00\x01\x03\t\t\n\t\n", 1, 1)
	f.Fuzz(func(t *testing.T, title, data string, target, maxTokens int) {
		opts := Options{TargetTokens: target % 1000, MaxTokens: maxTokens % 1000}
		doc := documentFromBytes(title, data)
		checkInvariants(t, doc, opts)
		if a, b := Split(doc, opts), Split(doc, opts); !reflect.DeepEqual(a, b) {
			t.Fatal("Split is not deterministic")
		}
	})
}
