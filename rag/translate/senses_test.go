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

// Naming words are nouns and names, not verbs, participles or adjectives, even when a form is
// also a noun; a word the analyser does not know names something unless it is shaped like a
// verb form.
func TestNamingWordsKeepNounsAndNames(t *testing.T) {
	t.Parallel()
	a := newApertium(t)
	for _, c := range []struct {
		lang  string
		words []string
		want  []string
	}{
		{"es", []string{"dentista", "pagan", "pasado", "sobraron", "Bogotá", "gimnasio"}, []string{"dentista", "Bogotá", "gimnasio"}},
		{"en", []string{"dentist", "finish", "messages", "longest", "Berlin", "401k"}, []string{"dentist", "messages", "Berlin", "401k"}},
	} {
		got, err := a.NamingWords(context.Background(), c.words, c.lang)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("NamingWords(%v, %s) = %v, want %v", c.words, c.lang, got, c.want)
		}
	}
}
