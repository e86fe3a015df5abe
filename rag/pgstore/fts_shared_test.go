package pgstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
)

// TestTranslatedPartReusesTheAskedPartsStatistics: a cross-lingual question's translated
// full-text part takes the readable classes, corpus size and asked words' lexemes its asked
// part read, and reads only the words the translation adds; its hits, scores and terms are
// those of a part that reads everything itself. The translator answers once the asked part has
// offered its statistics, so the pairing is tested, not the race.
func TestTranslatedPartReusesTheAskedPartsStatistics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	translations := map[string]string{
		"How many vacation days do I get per year?":           "Cuántos días de vacaciones cojo por año?",
		"¿Cuántos días a la semana puedo trabajar en remoto?": "How many days to the week can work in remote?",
		"What does ERR_4402 mean for the paymnet gateway?":    "¿Qué significa ERR_4402 para la pasarela de pago?",
	}
	afterAskedPart := func(ctx context.Context, text, from, to string) (string, error) {
		deadline := time.Now().Add(20 * time.Second)
		for pending, _ := b.store.SharedStats(); pending == 0; pending, _ = b.store.SharedStats() {
			if time.Now().After(deadline) {
				t.Error("the asked part offered no statistics")
				break
			}
			time.Sleep(time.Millisecond)
		}
		return fixedTranslations(translations)(ctx, text, from, to)
	}
	opts := rag.DefaultHybridOptions()
	opts.Translator = translatorFunc(afterAskedPart)
	shared := rag.NewHybrid(b.store, b.emb, opts)
	opts.Translator = fixedTranslations(translations)
	own := rag.NewHybrid(b.store.WithoutSharedStats(), b.emb, opts)
	scope := rag.MustScope("everyone", "engineering", "hr")
	for q := range translations {
		_, before := b.store.SharedStats()
		got, err := shared.Search(context.Background(), rag.SearchRequest{Query: q, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		if _, after := b.store.SharedStats(); after != before+1 {
			t.Errorf("%q: the translated part took %d statistics, want 1", q, after-before)
		}
		want, err := own.Search(context.Background(), rag.SearchRequest{Query: q, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		if got.Trace.Translated == "" || got.Trace.Translated != want.Trace.Translated {
			t.Fatalf("%q: translated %q and %q (the test would prove nothing)", q, got.Trace.Translated, want.Trace.Translated)
		}
		if !slices.Equal(got.Trace.Terms, want.Trace.Terms) {
			t.Errorf("%q: terms %v, want %v", q, got.Trace.Terms, want.Trace.Terms)
		}
		for _, arm := range []rag.Arm{rag.ArmFTS, rag.ArmVector} {
			if !slices.Equal(got.Trace.Arms[arm], want.Trace.Arms[arm]) {
				t.Errorf("%q: %s arm %v, want %v", q, arm, got.Trace.Arms[arm], want.Trace.Arms[arm])
			}
		}
	}
}
