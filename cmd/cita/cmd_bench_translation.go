package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/bench"
)

// compareTranslation times the questions through hybrid search without a translator and with
// the app's, over the corpus a indexed, and prints both and the p95 ratio.
func compareTranslation(ctx context.Context, e *env, a *app, dir string, chunks int, questions []string, asJSON bool) error {
	if a.translator.Translator == nil {
		return errors.New("--translation compare: no offline translator is installed or chosen (see --translator and cita doctor)")
	}
	a.warmTranslator(ctx, e.logger)
	offOpts := a.hybridOptions()
	offOpts.Translator = nil
	off := rag.NewHybrid(a.store, a.embedder, offOpts)
	on := rag.NewHybrid(a.store, a.embedder, a.hybridOptions())
	c, err := bench.CompareTranslation(ctx, off, on, questions, corpusBenchGroup)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(struct {
			Corpus     string `json:"corpus"`
			Chunks     int    `json:"chunks"`
			Translator string `json:"translator"`
			*bench.TranslationCost
		}{dir, chunks, a.translator.name, c})
	}
	fmt.Fprintf(e.stdout, "%s: %d chunks, %d searches of %.1f words on average, translator %s (%d translated, %d missing)\n",
		dir, chunks, c.Questions, c.QuestionWords, a.translator.name, c.Translated, c.Missing)
	fmt.Fprintf(e.stdout, "  hybrid without translation p50 %.2f ms p95 %.2f ms | with p50 %.2f ms p95 %.2f ms | p95 ratio %.2fx (target <= 1.10)\n",
		c.OffP50, c.OffP95, c.OnP50, c.OnP95, c.RatioP95)
	fmt.Fprintf(e.stdout, "  full-text arm inside hybrid p95 %.2f ms without, %.2f ms with | translation (beside the arms) p50 %.2f ms p95 %.2f ms\n",
		c.FTSOffP95, c.FTSOnP95, c.TranslateP50, c.TranslateP95)
	fmt.Fprintf(e.stdout, "  searched after the translation: full-text extra part p95 %.2f ms, blended vector p95 %.2f ms\n",
		c.ExtraFTSP95, c.ExtraVectorP95)
	return nil
}

// longQuestions returns the questions of at least minWords words (all of them for 0).
func longQuestions(questions []string, minWords int) []string {
	if minWords <= 0 {
		return questions
	}
	var out []string
	for _, q := range questions {
		if len(strings.Fields(q)) >= minWords {
			out = append(out, q)
		}
	}
	return out
}
