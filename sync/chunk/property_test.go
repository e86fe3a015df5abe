package chunk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/citahq/cita/sync/extract"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

var vocabulary = strings.Fields("el la de que y a en un ser se no haber por con su para como " +
	"the of and to in is it that for on with as was vacaciones empleado contrato 2026 A-17 " +
	"¿Cuándo? ¡Sí! días. año, (ver anexo). señor größe 日本語 x|y emoji🙂 ...")

func randomText(r *rand.Rand, words int) string { return randomTextWithGiants(r, words, 200) }

// randomTextWithGiants draws words from vocabulary, with one in giantEvery (on average) a run of up
// to 4,000 letters; giantEvery <= 0 means none.
func randomTextWithGiants(r *rand.Rand, words, giantEvery int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", "\n", "  "}[r.IntN(5)])
		}
		if giantEvery > 0 && r.IntN(giantEvery) == 0 { // a word far too long for any chunk
			b.WriteString(strings.Repeat("z", 1+r.IntN(4000)))
			continue
		}
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	return b.String()
}

func randomDocument(r *rand.Rand) *extract.Document {
	doc := &extract.Document{Title: randomText(r, r.IntN(6))}
	for range r.IntN(6) {
		sec := extract.Section{Locator: fmt.Sprintf("p. %d", r.IntN(9))}
		for range r.IntN(3) {
			sec.Path = append(sec.Path, randomText(r, 1+r.IntN(4)))
		}
		for range r.IntN(12) {
			b := extract.Block{Kind: extract.BlockKind(r.IntN(4)), Level: r.IntN(4)}
			if b.Kind == extract.TableBlock {
				b.Table = &extract.Table{RowsAsRecords: r.IntN(2) == 0}
				cols := 1 + r.IntN(5)
				for range cols {
					b.Table.Header = append(b.Table.Header, randomText(r, r.IntN(3)))
				}
				for range r.IntN(60) {
					row := make([]string, r.IntN(cols+2))
					for i := range row {
						row[i] = randomText(r, r.IntN(8))
					}
					b.Table.Rows = append(b.Table.Rows, row)
				}
			} else {
				b.Text = randomText(r, r.IntN(400))
			}
			sec.Blocks = append(sec.Blocks, b)
		}
		doc.Sections = append(doc.Sections, sec)
	}
	return doc
}

// documentText returns the text of every block and cell in document order (headers left out: record
// rows drop a header whose cells are empty).
func documentText(doc *extract.Document) string {
	var b strings.Builder
	for _, sec := range doc.Sections {
		for _, blk := range sec.Blocks {
			if blk.Table == nil || blk.Kind != extract.TableBlock {
				if blk.Kind != extract.TableBlock {
					b.WriteString(blk.Text + " ")
				}
				continue
			}
			for _, row := range blk.Table.Rows {
				b.WriteString(strings.Join(row, " ") + " ")
			}
		}
	}
	return b.String()
}

func withoutSpace(s string) []rune {
	var out []rune
	for _, r := range s {
		if !unicode.IsSpace(r) {
			out = append(out, r)
		}
	}
	return out
}

// isSubsequence reports whether want appears in have in order, possibly with other runes between
// (overlap, list markers, table pipes and labels, code fences).
func isSubsequence(want, have []rune) (bool, int) {
	j := 0
	for i := 0; i < len(have) && j < len(want); i++ {
		if have[i] == want[j] {
			j++
		}
	}
	return j == len(want), j
}

func checkInvariants(t *testing.T, doc *extract.Document, opts Options) {
	t.Helper()
	pieces := Split(doc, opts)
	maxTokens := opts.withDefaults().MaxTokens
	var all strings.Builder
	for i, p := range pieces {
		if p.Tokens > maxTokens || CountTokens(p.Content) > maxTokens {
			t.Fatalf("piece %d has %d tokens (content %d), cap %d", i, p.Tokens, CountTokens(p.Content), maxTokens)
		}
		if p.Tokens != CountTokens(p.Heading)+CountTokens(p.Content) {
			t.Fatalf("piece %d: Tokens = %d, want %d", i, p.Tokens, CountTokens(p.Heading)+CountTokens(p.Content))
		}
		if strings.TrimSpace(p.Content) == "" {
			t.Fatalf("piece %d is empty", i)
		}
		all.WriteString(p.Content)
	}
	want, have := withoutSpace(documentText(doc)), withoutSpace(all.String())
	if ok, n := isSubsequence(want, have); !ok {
		t.Fatalf("document text missing or out of order from rune %d: %q", n, string(want[n:min(len(want), n+40)]))
	}
}

func TestSplitRandomDocuments(t *testing.T) {
	t.Parallel()
	optionSets := []Options{{}, {TargetTokens: 60, MaxTokens: 80}, {TargetTokens: 5, MaxTokens: 7, OverlapRatio: 0.4}, {MaxTokens: 1}}
	for seed := range uint64(300) {
		r := newRand(seed)
		doc := randomDocument(r)
		opts := optionSets[seed%uint64(len(optionSets))]
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			checkInvariants(t, doc, opts)
		})
	}
}
