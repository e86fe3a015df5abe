package translate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/rag/translate"
)

func TestApertiumTranslatesQuestions(t *testing.T) {
	t.Parallel()
	a := newApertium(t)
	cases := []struct {
		text, from, to string
		want           []string // words the translation must hold
		not            []string // words it must not
	}{
		{"¿Quién aprueba un despliegue a producción?", "es", "en", []string{"approves", "deployment", "production"}, []string{"despliegue"}},
		{"¿Cuántos días de vacaciones tengo en Madrid?", "es", "en", []string{"days", "Madrid"}, []string{"vacaciones"}},
		{"How many vacation days do I get per year?", "en", "es", []string{"vacaciones", "días", "año"}, []string{"vacation"}},
		{"Who approves a deployment to production?", "en", "es", []string{"aprueba", "despliegue", "producción"}, nil},
		// Words Apertium does not know (names, codes, typos) come back as they were, unmarked.
		{"¿Qué hace Kubernetes con ERR_4402 y agronegosios?", "es", "en", []string{"What", "Kubernetes", "ERR_4402", "agronegosios"}, []string{"*", "#", "@"}},
	}
	for _, c := range cases {
		got, err := a.Translate(context.Background(), c.text, c.from, c.to)
		if err != nil {
			t.Errorf("Translate(%q) error: %v", c.text, err)
			continue
		}
		words := strings.Fields(strings.Trim(got, "?¿"))
		has := func(w string) bool {
			for _, x := range words {
				if strings.Trim(x, "?¿.,") == w {
					return true
				}
			}
			return false
		}
		for _, w := range c.want {
			if !has(w) {
				t.Errorf("Translate(%q) = %q, lacks %q", c.text, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("Translate(%q) = %q, holds %q", c.text, got, w)
			}
		}
	}
}

func TestApertiumSurvivesReservedCharacters(t *testing.T) {
	t.Parallel()
	a := newApertium(t)
	// Apertium's stream format reserves these; unescaped, they corrupt the pipeline's state.
	if _, err := a.Translate(context.Background(), `¿el contrato [x] de $foo ^a/b@c <d> {e} \f *g #h?`, "es", "en"); err != nil {
		t.Fatalf("Translate with reserved characters: %v", err)
	}
	got, err := a.Translate(context.Background(), "¿Quién aprueba el gasto?", "es", "en")
	if err != nil || !strings.Contains(got, "approves") {
		t.Errorf("next query = %q, %v; want a translation holding 'approves'", got, err)
	}
}

func TestApertiumConcurrentQueriesGetTheirOwnTranslation(t *testing.T) {
	t.Parallel()
	// Forty queries take turns through one pipeline: on a loaded machine the last waits longer
	// than a chat answer's timeout, and this test is about each getting its own translation.
	a, err := translate.NewApertium(translate.ApertiumOptions{Timeout: time.Minute})
	if err != nil {
		missingData(t, "Apertium", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	queries := map[string][2]string{
		"¿Quién aprueba el despliegue?":      {"es", "en"},
		"¿Cuántos días de vacaciones tengo?": {"es", "en"},
		"Who approves the deployment?":       {"en", "es"},
		"How many vacation days do I have?":  {"en", "es"},
	}
	want := map[string]string{}
	for q, p := range queries {
		got, err := a.Translate(context.Background(), q, p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		want[q] = got
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				for q, p := range queries {
					got, err := a.Translate(context.Background(), q, p[0], p[1])
					if err != nil || got != want[q] {
						errs <- fmt.Errorf("goroutine %d: Translate(%q) = %q, %v; want %q", g, q, got, err, want[q])
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestApertiumUnsupportedPairAndClose(t *testing.T) {
	t.Parallel()
	a := newApertium(t)
	if _, err := a.Translate(context.Background(), "bonjour", "fr", "en"); !errors.Is(err, translate.ErrUnsupported) {
		t.Errorf("fr-en = %v, want ErrUnsupported", err)
	}
	if _, err := a.Translate(context.Background(), "hola", "es", "en"); err != nil {
		t.Fatal(err)
	}
	_ = a.Close()
	if _, err := a.Translate(context.Background(), "hola", "es", "en"); err == nil {
		t.Error("Translate after Close succeeded")
	}
}

func TestNewApertiumSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	_, err := translate.NewApertium(translate.ApertiumOptions{ModesDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "spa-eng") && !strings.Contains(err.Error(), "eng-spa") {
		t.Errorf("NewApertium on an empty folder = %v, want an error naming the missing mode", err)
	}
}

// BenchmarkApertiumTranslate measures one warm query through the kept-alive pipeline: the cost
// cross-lingual search adds to each question (go test -bench Apertium ./rag/translate/).
func BenchmarkApertiumTranslate(b *testing.B) {
	a, err := translate.NewApertium(translate.ApertiumOptions{})
	if err != nil {
		b.Skipf("Apertium is not installed (%v): run scripts/setup.sh", err)
	}
	defer a.Close()
	ctx := context.Background()
	if err := a.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	queries := [][3]string{
		{"¿Cuántos días de vacaciones tengo al año en Madrid?", "es", "en"},
		{"Who approves a deployment to production?", "en", "es"},
	}
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		if _, err := a.Translate(ctx, q[0], q[1], q[2]); err != nil {
			b.Fatal(err)
		}
	}
}
