package glossary

import (
	"strings"
	"testing"

	"github.com/citahq/cita/rag/lang"
)

func TestParseReadsConceptsMappingsAndDomains(t *testing.T) {
	t.Parallel()
	g, err := Parse(strings.NewReader(`# comment

[leave]
en: sick leave, sick day | es: baja por enfermedad
PTO, paid time off
es: parqueadero => es: aparcamiento | en: parking
`), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Entries) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(g.Entries), g.Entries)
	}
	sick := g.Entries[0]
	if sick.Domain != "leave" || sick.Origin != "test:4" || len(sick.Terms) != 3 || sick.Terms[2] != (Term{"baja por enfermedad", Spanish}) {
		t.Errorf("first entry %+v", sick)
	}
	if got := sick.Bridges(sick.Terms[2]); len(got) != 2 || got[0].Text != "sick leave" {
		t.Errorf("an equivalence bridges to its other terms, got %+v", got)
	}
	if pto := g.Entries[1]; pto.Terms[0].Lang != AnyLang {
		t.Errorf("an untagged term has no language, got %q", pto.Terms[0].Lang)
	}
	m := g.Entries[2]
	if len(m.Terms) != 1 || len(m.To) != 2 || m.To[1] != (Term{"parking", English}) {
		t.Errorf("mapping %+v", m)
	}
	if got := m.Bridges(m.Terms[0]); len(got) != 2 {
		t.Errorf("a mapping bridges to its right side, got %+v", got)
	}
}

func TestParseNamesTheBadLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"en: alone", "x:1: an entry needs two terms"},
		{"ok, fine\nfr: chose, truc", "x:2: unknown language \"fr\""},
		{"a => ", "x:1: a mapping needs terms on both sides"},
		{"a => b => c", "x:1: more than one =>"},
		{"[]", "x:1: a domain header"},
		{"one two three four five six seven eight nine, x", "has 9 words"},
		{"a, \xff\xfe", "x:1: not valid UTF-8"},
		{"!!, ??", "has no letter or digit"},
		{strings.Repeat("w", maxLineBytes+10), "longer than"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.30q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// The shipped glossary parses, holds both languages in every domain it names, and has no
// entry that bridges a term to itself.
func TestBuiltinGlossaryParses(t *testing.T) {
	t.Parallel()
	g := Builtin()
	if g.Len() < 50 {
		t.Fatalf("builtin glossary has %d entries", g.Len())
	}
	domains := map[string]map[string]bool{}
	for _, e := range g.Entries {
		if domains[e.Domain] == nil {
			domains[e.Domain] = map[string]bool{}
		}
		for _, t := range append(append([]Term(nil), e.Terms...), e.To...) {
			domains[e.Domain][t.Lang] = true
		}
		seen := map[string]bool{}
		for _, term := range e.Terms {
			k := term.Lang + ":" + strings.ToLower(term.Text)
			if seen[k] {
				t.Errorf("%s: %q twice", e.Origin, term.Text)
			}
			seen[k] = true
		}
	}
	for d, langs := range domains {
		if !langs[English] || !langs[Spanish] {
			t.Errorf("domain %q lacks a language: %v", d, langs)
		}
	}
}

// A term of the shipped glossary is on one line only: the matcher bridges a term to every other
// term of each line it is on, so the same words on two lines would join two concepts ("ticket"
// as a receipt and as a support request). Terms are compared as the matcher sees them, without
// accents or case; an untagged term counts in both languages.
func TestBuiltinGlossaryTermsAreOnOneLine(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, e := range Builtin().Entries {
		if e.To != nil {
			continue // a mapping repeats its terms on purpose
		}
		onLine := map[string]bool{}
		for _, term := range e.Terms {
			langs := []string{term.Lang}
			if term.Lang == AnyLang {
				langs = []string{Spanish, English}
			}
			for _, l := range langs {
				k := l + ":" + strings.Join(strings.Fields(lang.Fold(term.Text)), " ")
				if onLine[k] {
					continue // "período" and "periodo" on the same line
				}
				onLine[k] = true
				if first, ok := seen[k]; ok {
					t.Errorf("%s: %q is also on %s", e.Origin, term.Text, first)
					continue
				}
				seen[k] = e.Origin
			}
		}
	}
}

// droppedWords are words that the matcher drops as stopwords or fillers (package rag's
// stopwords and chatty lists) but that carry a term's meaning: "permiso no retribuido" would be
// matched as "permiso retribuido", its opposite; "IT support" as any "support"; "own car" as
// any "car".
var droppedWords = map[string]bool{
	"no": true, "not": true, "nor": true, "ni": true, "sin": true,
	"it": true, "own": true, "over": true, "after": true, "before": true, "long": true, "early": true,
}

// meaningKept lists the terms that hold a dropped word whose loss leaves a phrase nobody uses
// for anything else, with the reason.
var meaningKept = map[string]string{
	"permiso sin sueldo":         `read as "permiso sueldo"; paid leave is "permiso retribuido" or "permiso pagado"`,
	"pacto de no competencia":    `read as "pacto competencia", which names no other clause`,
	"cláusula de no competencia": `read as "cláusula competencia", which names no other clause`,
	"acuerdo de no competencia":  `read as "acuerdo competencia", which names no other agreement`,
	"bring your own device":      `read as "bring device", still BYOD`,
}

func TestBuiltinGlossaryTermsKeepTheirMeaningWords(t *testing.T) {
	t.Parallel()
	for _, e := range Builtin().Entries {
		for _, term := range append(append([]Term(nil), e.Terms...), e.To...) {
			if _, ok := meaningKept[term.Text]; ok {
				continue
			}
			for _, w := range strings.FieldsFunc(strings.ToLower(term.Text), func(r rune) bool {
				return r == ' ' || r == '-' || r == '/' || r == '\''
			}) {
				if droppedWords[w] {
					t.Errorf("%s: %q holds %q, which the matcher drops", e.Origin, term.Text, w)
				}
			}
		}
	}
	for text := range meaningKept {
		if !builtinHas(text) {
			t.Errorf("meaningKept lists %q, which the glossary no longer has", text)
		}
	}
}

func builtinHas(text string) bool {
	for _, e := range Builtin().Entries {
		for _, term := range e.Terms {
			if term.Text == text {
				return true
			}
		}
	}
	return false
}
