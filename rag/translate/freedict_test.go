package translate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citahq/cita/rag/translate"
)

func TestFreeDictTranslatesWordByWord(t *testing.T) {
	t.Parallel()
	f := loadFreeDict(t)
	cases := []struct {
		text, from, to string
		want           []string
	}{
		{"vacaciones", "es", "en", []string{"vacation"}},
		{"¿Cuántos días?", "es", "en", []string{"day"}}, // a plural found through its singular
		{"How many days per year?", "en", "es", []string{"día", "año"}},
		// Names and typos come back as they were.
		{"vacaciones en Bogotá para agronegosios", "es", "en", []string{"vacation", "Bogotá", "agronegosios"}},
	}
	for _, c := range cases {
		got, err := f.Translate(context.Background(), c.text, c.from, c.to)
		if err != nil {
			t.Fatalf("Translate(%q): %v", c.text, err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("Translate(%q) = %q, lacks %q", c.text, got, w)
			}
		}
	}
	if _, err := f.Translate(context.Background(), "hola", "es", "fr"); !errors.Is(err, translate.ErrUnsupported) {
		t.Errorf("es-fr = %v, want ErrUnsupported", err)
	}
}

func TestLoadFreeDictSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	if _, err := translate.LoadFreeDict(t.TempDir()); err == nil || !strings.Contains(err.Error(), "freedict-") {
		t.Errorf("LoadFreeDict on an empty folder = %v, want an error naming the missing file", err)
	}
}
