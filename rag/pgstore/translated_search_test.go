package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// translatorFunc is a rag.Translator over a function: the real ones are tested in rag/translate.
type translatorFunc func(ctx context.Context, text, from, to string) (string, error)

func (f translatorFunc) Translate(ctx context.Context, text, from, to string) (string, error) {
	return f(ctx, text, from, to)
}

// fixedTranslations translates the listed questions and fails on any other.
func fixedTranslations(m map[string]string) translatorFunc {
	return func(_ context.Context, text, _, _ string) (string, error) {
		if out, ok := m[text]; ok {
			return out, nil
		}
		return "", errors.New("no translation")
	}
}

func (b *bundle) hybridWith(tr rag.Translator) *rag.Hybrid {
	opts := rag.DefaultHybridOptions()
	opts.Translator = tr
	return rag.NewHybrid(b.store, b.emb, opts)
}

func TestTranslatedQueryFindsDocumentsInTheOtherLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	tr := fixedTranslations(map[string]string{
		"How many vacation days do I get per year?":           "Cuántos días de vacaciones cojo por año?",
		"¿Cuántos días a la semana puedo trabajar en remoto?": "How many days to the week can work in remote?",
	})
	all := rag.MustScope("everyone", "engineering", "hr")
	cases := []struct{ query, want string }{
		{"How many vacation days do I get per year?", "vacaciones.md"},
		{"¿Cuántos días a la semana puedo trabajar en remoto?", "remote.md"},
	}
	for _, c := range cases {
		res, err := b.hybridWith(tr).Search(context.Background(), rag.SearchRequest{Query: c.query, Scope: all})
		if err != nil {
			t.Fatal(err)
		}
		if got := topPath(t, res); got != c.want {
			t.Errorf("%q: top hit %s, want %s (terms %v)", c.query, got, c.want, res.Trace.Terms)
		}
		if res.Trace.Translated == "" || !slices.ContainsFunc(res.Trace.Terms, func(s string) bool { return strings.HasPrefix(s, "→") }) {
			t.Errorf("%q: trace lacks the translation (translated %q, terms %v)", c.query, res.Trace.Translated, res.Trace.Terms)
		}
	}
}

func TestTranslatedQueryKeepsTheAccessFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	q := "What is the base salary of band B7?"
	h := b.hybridWith(fixedTranslations(map[string]string{q: "Cuál es el salario base de banda B7?"}))
	res, err := h.Search(context.Background(), rag.SearchRequest{Query: q, Scope: rag.MustScope("everyone", "engineering")})
	if err != nil {
		t.Fatal(err)
	}
	for _, hit := range res.Hits {
		if hit.Path == "salarios.md" {
			t.Fatalf("the hr-only document was returned to a scope without hr (terms %v)", res.Trace.Terms)
		}
	}
	for _, ids := range res.Trace.Arms {
		if len(ids) > 0 && len(res.Hits) == 0 {
			t.Fatal("an arm returned chunks the scope cannot load")
		}
	}
	res, err = h.Search(context.Background(), rag.SearchRequest{Query: q, Scope: rag.MustScope("hr")})
	if err != nil {
		t.Fatal(err)
	}
	if got := topPath(t, res); got != "salarios.md" {
		t.Errorf("hr scope: top hit %s, want salarios.md", got)
	}
}

func TestFailingTranslatorLeavesSearchMonolingual(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	all := rag.MustScope("everyone", "engineering", "hr")
	broken := translatorFunc(func(context.Context, string, string, string) (string, error) {
		return "", errors.New("apertium spa-eng: down")
	})
	for _, q := range []string{"¿Qué significa ERR_4402?", "feria de agronegosios"} {
		want, err := b.hybrid().Search(context.Background(), rag.SearchRequest{Query: q, Scope: all})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.hybridWith(broken).Search(context.Background(), rag.SearchRequest{Query: q, Scope: all})
		if err != nil {
			t.Fatalf("%q with a failing translator: %v", q, err)
		}
		if got.Trace.Translated != "" || topPath(t, got) != topPath(t, want) || len(got.Hits) != len(want.Hits) {
			t.Errorf("%q: with a failing translator top %s (%d hits, translated %q), without %s (%d hits)",
				q, topPath(t, got), len(got.Hits), got.Trace.Translated, topPath(t, want), len(want.Hits))
		}
	}
}

func TestTranslatedQueryCorrectsOnlyWordsTheTranslatorDidNotKnow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	all := rag.MustScope("everyone", "engineering", "hr")
	h := b.hybridWith(fixedTranslations(map[string]string{
		// A typo the translator did not know either comes back as it was: it is corrected.
		"feria de agronegosios": "fair of agronegosios",
		// Words it translated are found through their translation, not "corrected" into the
		// other language's vocabulary.
		"How many holiday days do employees accumulate?": "Cuántos días de vacaciones acumulan los empleados?",
	}))
	res, err := h.Search(context.Background(), rag.SearchRequest{Query: "feria de agronegosios", Scope: all})
	if err != nil {
		t.Fatal(err)
	}
	if got := topPath(t, res); got != "ferias.md" || !slices.ContainsFunc(res.Trace.Terms, func(s string) bool { return strings.HasPrefix(s, "~agronegoci") }) {
		t.Errorf("typo with a translation: top %s, terms %v; want ferias.md through ~agronegoci", got, res.Trace.Terms)
	}
	res, err = h.Search(context.Background(), rag.SearchRequest{Query: "How many holiday days do employees accumulate?", Scope: all})
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range res.Trace.Terms {
		if strings.HasPrefix(term, "~") {
			t.Errorf("translated words were fuzzy-expanded: terms %v", res.Trace.Terms)
			break
		}
	}
	if got := topPath(t, res); got != "vacaciones.md" {
		t.Errorf("top %s, want vacaciones.md (terms %v)", got, res.Trace.Terms)
	}
}
