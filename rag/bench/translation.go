package bench

import (
	"context"
	"time"

	"github.com/citahq/cita/rag"
)

// TranslationCost is what cross-lingual search adds to hybrid retrieval: the same questions
// searched without a translator and with one, in milliseconds. JSON keys are the ones `cita
// bench --corpus DIR --translation compare --json` prints.
type TranslationCost struct {
	Questions     int     `json:"questions"`
	QuestionWords float64 `json:"question_words"`
	OffP50        float64 `json:"hybrid_off_p50_ms"`
	OffP95        float64 `json:"hybrid_off_p95_ms"`
	OnP50         float64 `json:"hybrid_on_p50_ms"`
	OnP95         float64 `json:"hybrid_on_p95_ms"`
	// RatioP95 is OnP95 / OffP95: the target is at most 1.10.
	RatioP95 float64 `json:"on_off_p95_ratio"`
	// The full-text arm's own time inside hybrid (with translation: the asked words' part).
	FTSOffP95 float64 `json:"fts_arm_off_p95_ms"`
	FTSOnP95  float64 `json:"fts_arm_on_p95_ms"`
	// The translator's time, made beside the arms.
	TranslateP50 float64 `json:"translate_p50_ms"`
	TranslateP95 float64 `json:"translate_p95_ms"`
	// What the translation adds, searched when it arrives: the full-text arm's extra part, and
	// the vector arm's blend (embedding the translation, waiting for the query's own hits, and
	// rescoring them; a second index search with a store that cannot rescore).
	ExtraFTSP95    float64 `json:"fts_translated_p95_ms"`
	ExtraVectorP95 float64 `json:"vector_translated_p95_ms"`
	// Translated counts the searches whose translation was searched; Missing those whose
	// translator failed.
	Translated int `json:"translated"`
	Missing    int `json:"translation_missing"`
}

// CompareTranslation searches every question under group's scope through off (a hybrid
// searcher without a translator) and on (the same with one), alternating which goes first so
// that drift on a shared machine falls on both alike. It returns the first search error.
func CompareTranslation(ctx context.Context, off, on rag.Searcher, questions []string, group string) (*TranslationCost, error) {
	scope := rag.MustScope(group)
	var offT, onT, ftsOff, ftsOn, translate, extraFTS, extraVec []time.Duration
	c := &TranslationCost{Questions: len(questions)}
	var words int
	for i, q := range questions {
		words += len(queryWords(q))
		if i == 0 { // warm both paths (and the translator's processes) before timing
			for _, s := range []rag.Searcher{off, on} {
				if _, err := s.Search(ctx, rag.SearchRequest{Query: q, Scope: scope}); err != nil {
					return nil, err
				}
			}
		}
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, translated := range order {
			s := off
			if translated {
				s = on
			}
			t0 := time.Now()
			res, err := s.Search(ctx, rag.SearchRequest{Query: q, Scope: scope, Limit: 10})
			if err != nil {
				return nil, err
			}
			took := time.Since(t0)
			if !translated {
				offT, ftsOff = append(offT, took), append(ftsOff, res.Trace.Timings["fts"])
				continue
			}
			onT, ftsOn = append(onT, took), append(ftsOn, res.Trace.Timings["fts"])
			translate = append(translate, res.Trace.Timings["translate"])
			extraFTS = append(extraFTS, res.Trace.Timings["fts_translated"])
			extraVec = append(extraVec, res.Trace.Timings["vector_translated"])
			if res.Trace.Translated != "" {
				c.Translated++
			}
			if res.Trace.TranslationMissing != "" {
				c.Missing++
			}
		}
	}
	if len(questions) > 0 {
		c.QuestionWords = float64(words) / float64(len(questions))
	}
	c.OffP50, c.OffP95 = pct(offT, 0.5), pct(offT, 0.95)
	c.OnP50, c.OnP95 = pct(onT, 0.5), pct(onT, 0.95)
	c.RatioP95 = c.OnP95 / max(c.OffP95, 0.001)
	c.FTSOffP95, c.FTSOnP95 = pct(ftsOff, 0.95), pct(ftsOn, 0.95)
	c.TranslateP50, c.TranslateP95 = pct(translate, 0.5), pct(translate, 0.95)
	c.ExtraFTSP95, c.ExtraVectorP95 = pct(extraFTS, 0.95), pct(extraVec, 0.95)
	return c, nil
}
