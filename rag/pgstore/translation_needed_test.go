package pgstore_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestTranslatorAskedOnlyWhenTheOtherLanguageIsReadable: an English question whose scope reads
// only English documents is not translated (nothing Spanish could match; the trace says why);
// the same question under a scope that reads a Spanish document is, and finds it.
func TestTranslatorAskedOnlyWhenTheOtherLanguageIsReadable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.doc(t, "t", "leave.md", "Leave", "en", []string{"everyone"}, "Parental leave is sixteen weeks, paid in full by the company.")
	b.doc(t, "t", "vacaciones.md", "Vacaciones", "es", []string{"latam"}, "Las vacaciones anuales son de quince días hábiles por año trabajado.")
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	q := "How many vacation days do we get every year?"
	tr := translatorFunc(func(context.Context, string, string, string) (string, error) {
		calls.Add(1)
		return "Cuántos días de vacaciones tenemos cada año?", nil
	})
	h := b.hybridWith(tr)

	res, err := h.Search(ctx, rag.SearchRequest{Query: q, Scope: rag.MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("translator asked %d times for a scope with no Spanish document", n)
	}
	if res.Trace.TranslationSkipped == "" || res.Trace.Translated != "" || res.Trace.TranslationMissing != "" {
		t.Errorf("trace: skipped %q, translated %q, missing %q", res.Trace.TranslationSkipped, res.Trace.Translated, res.Trace.TranslationMissing)
	}

	res, err = h.Search(ctx, rag.SearchRequest{Query: q, Scope: rag.MustScope("everyone", "latam")})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 || res.Trace.Translated == "" || res.Trace.TranslationSkipped != "" {
		t.Fatalf("scope with a Spanish document: translator calls %d, translated %q, skipped %q", calls.Load(), res.Trace.Translated, res.Trace.TranslationSkipped)
	}
	if got := topPath(t, res); got != "vacaciones.md" {
		t.Errorf("top hit %s, want vacaciones.md", got)
	}
}
