package translate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// The senses hold what the translation drops: every translation of every reading of each
// content word, in the other language, and none of function words.
func TestSensesListEveryReadingsTranslations(t *testing.T) {
	t.Parallel()
	a := newApertium(t)
	cases := []struct {
		text, from, to string
		want           map[string][]string // from word -> senses it must have
		none           []string            // words with no senses
	}{
		{"¿Cuánto es el presupuesto de formación?", "es", "en",
			map[string][]string{"presupuesto": {"budget", "estimate"}, "formación": {"training"}}, []string{"el", "de"}},
		// The tagger reads "seguro" as the adverb; the noun's sense is there too.
		{"seguro médico", "es", "en", map[string][]string{"seguro": {"insurance", "sure"}, "médico": {"medical"}}, nil},
		{"training budget", "en", "es", map[string][]string{"training": {"formación"}, "budget": {"presupuesto"}}, nil},
	}
	for _, c := range cases {
		senses, err := a.Senses(context.Background(), c.text, c.from, c.to)
		if err != nil {
			t.Fatalf("Senses(%q): %v", c.text, err)
		}
		got := map[string][]string{}
		for _, b := range senses {
			if b.FromLang != c.from || b.Lang != c.to || b.Via != rag.ViaDictionary || b.Weight <= 0 || b.Weight >= 1 {
				t.Errorf("Senses(%q): bridge %+v", c.text, b)
			}
			got[strings.ToLower(b.From)] = append(got[strings.ToLower(b.From)], b.To)
		}
		for from, want := range c.want {
			for _, w := range want {
				if !slices.Contains(got[from], w) {
					t.Errorf("Senses(%q): %q has %v, lacks %q", c.text, from, got[from], w)
				}
			}
		}
		for _, w := range c.none {
			if len(got[w]) > 0 {
				t.Errorf("Senses(%q): function word %q has senses %v", c.text, w, got[w])
			}
		}
	}
	if _, err := a.Senses(context.Background(), "hola", "es", "fr"); err == nil {
		t.Error("an unsupported pair is an error")
	}
}
