package chunk

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/citahq/cita/sync/extract"
)

func para(s string) extract.Block { return extract.Block{Kind: extract.Paragraph, Text: s} }

// prose returns n distinct sentences of about eight tokens each, tagged with tag so a test can
// tell which section a sentence came from.
func prose(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "El %s%d pide días libres cada año.", tag, i)
	}
	return b.String()
}

func TestSplitSmallDocumentIsOnePiece(t *testing.T) {
	t.Parallel()
	doc := &extract.Document{
		Title: "Manual del empleado",
		Sections: []extract.Section{{
			Path:    []string{"Vacaciones", "Solicitud"},
			Locator: "p. 4",
			Blocks: []extract.Block{
				para("Las vacaciones se piden con 15 días de antelación."),
				{Kind: extract.ListItem, Text: "Rellenar el formulario"},
				{Kind: extract.ListItem, Text: "Enviarlo al responsable", Level: 1},
				para("RRHH confirma por correo."),
			},
		}},
	}
	got := Split(doc, Options{})
	want := []Piece{{
		Heading: "Manual del empleado > Vacaciones > Solicitud",
		Section: "Vacaciones > Solicitud",
		Locator: "p. 4",
		Content: "Las vacaciones se piden con 15 días de antelación.\n\n" +
			"- Rellenar el formulario\n  - Enviarlo al responsable\n\n" +
			"RRHH confirma por correo.",
	}}
	want[0].Tokens = CountTokens(want[0].Heading + "\n\n" + want[0].Content)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Split() =\n%#v\nwant\n%#v", got, want)
	}
}

func TestSplitPreambleHeadingIsTitle(t *testing.T) {
	t.Parallel()
	doc := &extract.Document{Title: "Guía", Sections: []extract.Section{{Blocks: []extract.Block{para("Texto inicial.")}}}}
	got := Split(doc, Options{})
	if len(got) != 1 || got[0].Heading != "Guía" || got[0].Section != "" {
		t.Fatalf("Split() = %#v, want one piece headed %q with no section", got, "Guía")
	}
}

func TestSplitEmptyDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  *extract.Document
	}{
		{"nil", nil},
		{"no sections", &extract.Document{Title: "Vacío"}},
		{"only blank blocks", &extract.Document{Sections: []extract.Section{{
			Path: []string{"A"},
			Blocks: []extract.Block{
				para("  \n "), {Kind: extract.Code, Text: "\n\n"}, {Kind: extract.TableBlock},
				{Kind: extract.TableBlock, Table: &extract.Table{Rows: [][]string{{"", " "}}}},
			},
		}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Split(tt.doc, Options{}); len(got) != 0 {
				t.Errorf("Split() = %#v, want no pieces", got)
			}
		})
	}
}

func TestSplitLongSectionOverlaps(t *testing.T) {
	t.Parallel()
	var blocks []extract.Block
	for i := range 40 {
		blocks = append(blocks, para(prose(fmt.Sprintf("p%dx", i), 8)))
	}
	opts := Options{TargetTokens: 300, MaxTokens: 450}
	pieces := Split(&extract.Document{Title: "Política", Sections: []extract.Section{{Path: []string{"Larga"}, Blocks: blocks}}}, opts)
	if len(pieces) < 5 {
		t.Fatalf("got %d pieces, want several", len(pieces))
	}
	for i, p := range pieces {
		if p.Tokens > opts.MaxTokens || p.Tokens != CountTokens(p.Heading)+CountTokens(p.Content) {
			t.Errorf("piece %d: Tokens = %d (content %d), cap %d", i, p.Tokens, CountTokens(p.Content), opts.MaxTokens)
		}
		if i == 0 {
			continue
		}
		prev := pieces[i-1].Content
		ov := sharedOverlap(prev, p.Content)
		ratio := float64(CountTokens(ov)) / float64(CountTokens(prev))
		if ratio < 0.10 || ratio > 0.15 {
			t.Errorf("piece %d: overlap %.3f of previous piece (%q), want 0.10-0.15", i, ratio, ov)
		}
		if !strings.HasPrefix(ov, "El ") {
			t.Errorf("piece %d: overlap %q does not start on a sentence", i, ov)
		}
	}
}

// sharedOverlap returns the longest suffix of prev that is also a prefix of next.
func sharedOverlap(prev, next string) string {
	for k := min(len(prev), len(next)); k > 0; k-- {
		if strings.HasSuffix(prev, next[:k]) {
			return next[:k]
		}
	}
	return ""
}

func TestSplitHeadingsNeverBleed(t *testing.T) {
	t.Parallel()
	doc := &extract.Document{Title: "Doc"}
	tags := []string{"alfa", "beta", "gamma"}
	for i, tag := range tags {
		doc.Sections = append(doc.Sections, extract.Section{
			Path:    []string{"Capítulo " + tag},
			Locator: fmt.Sprintf("p. %d", i+1),
			Blocks:  []extract.Block{para(prose(tag, 3+i*60)), para(prose(tag+"fin", 2))},
		})
	}
	pieces := Split(doc, Options{})
	seen := map[string]int{}
	for _, p := range pieces {
		owner := ""
		for i, tag := range tags {
			if strings.Contains(p.Content, "El "+tag) {
				if owner != "" {
					t.Errorf("piece mixes sections %q and %q: %q", owner, tag, p.Content)
				}
				owner = tag
				if want := "Doc > Capítulo " + tag; p.Heading != want || p.Section != "Capítulo "+tag || p.Locator != fmt.Sprintf("p. %d", i+1) {
					t.Errorf("piece with %q text has heading %q, section %q, locator %q", tag, p.Heading, p.Section, p.Locator)
				}
			}
		}
		seen[owner]++
	}
	if seen["alfa"] != 1 || seen["beta"] < 2 || seen["gamma"] < 2 || seen[""] != 0 {
		t.Errorf("pieces per section = %v, want alfa whole in one, beta and gamma split, none unowned", seen)
	}
}

func TestSplitCodeBlockStaysIntact(t *testing.T) {
	t.Parallel()
	code := "func main() {\n\tfmt.Println(\"hola\")\n}"
	blocks := []extract.Block{para(prose("a", 20)), {Kind: extract.Code, Text: "\n" + code + "\n\n"}, para(prose("b", 20))}
	pieces := Split(&extract.Document{Sections: []extract.Section{{Path: []string{"S"}, Blocks: blocks}}}, Options{})
	found := 0
	for _, p := range pieces {
		if strings.Contains(p.Content, "```\n"+code+"\n```") {
			found++
		}
		if strings.Contains(p.Content, "fmt.Println") && !strings.Contains(p.Content, code) {
			t.Errorf("code block cut: %q", p.Content)
		}
	}
	if found != 1 {
		t.Errorf("fenced code block found whole in %d pieces, want 1", found)
	}
}

func TestSplitGiantParagraphWithoutSpacesIsCapped(t *testing.T) {
	t.Parallel()
	giant := strings.Repeat("abcdefghij", 2000) + strings.Repeat("ñ", 3000)
	opts := Options{TargetTokens: 100, MaxTokens: 150}
	pieces := Split(&extract.Document{Title: "T", Sections: []extract.Section{{Blocks: []extract.Block{para(giant)}}}}, opts)
	var joined strings.Builder // no whitespace means no overlap: the pieces must join back exactly
	for i, p := range pieces {
		if p.Tokens > opts.MaxTokens || CountTokens(p.Content) > opts.MaxTokens {
			t.Errorf("piece %d has %d tokens, cap %d", i, p.Tokens, opts.MaxTokens)
		}
		joined.WriteString(p.Content)
	}
	if joined.String() != giant {
		t.Errorf("pieces joined do not give back the paragraph (len %d vs %d)", joined.Len(), len(giant))
	}
}

func TestSplitGiantParagraphCutsOnSentences(t *testing.T) {
	t.Parallel()
	text := prose("s", 60)
	pieces := Split(&extract.Document{Sections: []extract.Section{{Path: []string{"S"}, Blocks: []extract.Block{para(text)}}}}, Options{OverlapRatio: -1})
	if len(pieces) < 2 {
		t.Fatalf("got %d pieces, want the paragraph split", len(pieces))
	}
	var contents []string
	for i, p := range pieces {
		if !strings.HasPrefix(p.Content, "El s") || !strings.HasSuffix(p.Content, "año.") {
			t.Errorf("piece %d is not cut on sentences: %.40q...%q", i, p.Content, p.Content[max(0, len(p.Content)-20):])
		}
		contents = append(contents, p.Content)
	}
	if got := strings.Join(contents, " "); got != text {
		t.Errorf("with overlap disabled, pieces joined do not give back the paragraph")
	}
}

func TestSplitIsDeterministic(t *testing.T) {
	t.Parallel()
	doc := randomDocument(newRand(7))
	a, b := Split(doc, Options{}), Split(doc, Options{})
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of Split on the same document differ")
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want Options
	}{
		{Options{}, Options{300, 450, 0.12}},
		{Options{TargetTokens: 900}, Options{450, 450, 0.12}},
		{Options{MaxTokens: 100}, Options{100, 100, 0.12}},
		{Options{OverlapRatio: -1}, Options{300, 450, 0}},
		{Options{OverlapRatio: 3}, Options{300, 450, 0.4}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
