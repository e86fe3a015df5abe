package metrics_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/rag"
)

// emptyArms is a rag.ArmStore that finds nothing.
type emptyArms struct{}

func (emptyArms) SearchVector(context.Context, []float32, rag.Scope, int) ([]rag.ArmHit, error) {
	return nil, nil
}

func (emptyArms) SearchFTS(context.Context, rag.FTSQuery, rag.Scope, int) ([]rag.ArmHit, []string, error) {
	return nil, nil, nil
}

func (emptyArms) LoadHits(context.Context, []int64, rag.Scope) ([]rag.Hit, error) { return nil, nil }

type oneVector struct{}

func (oneVector) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

type brokenTranslator struct{ err error }

func (b brokenTranslator) Translate(context.Context, string, string, string) (string, error) {
	return "", b.err
}

func TestTranslationFailuresAreCountedByReason(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.WatchTranslations()
	if page := scrape(t, m); !strings.Contains(page, `cita_translation_failures_total{reason="error"} 0`) {
		t.Errorf("/metrics lacks the failure counter before any failure")
	}
	opts := rag.DefaultHybridOptions()
	opts.TranslationFailures = m
	for _, err := range []error{errors.New("apertium spa-eng: broken pipe"), errors.New("down"), context.DeadlineExceeded} {
		opts.Translator = brokenTranslator{err}
		if _, serr := rag.NewHybrid(emptyArms{}, oneVector{}, opts).Search(context.Background(),
			rag.SearchRequest{Query: "¿Cuántos días de vacaciones tengo?", Scope: rag.MustScope("hr")}); serr != nil {
			t.Fatal(serr)
		}
	}
	page := scrape(t, m)
	for _, want := range []string{
		`cita_translation_failures_total{reason="error"} 2`,
		`cita_translation_failures_total{reason="timeout"} 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
