package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// runTopicEval measures how questions are grouped into topics (the gap record's grouping) on
// a labelled set: pairwise precision and recall at thresholds around the default.
func runTopicEval(ctx context.Context, e *env, path string, asJSON bool) error {
	qs, err := eval.LoadTopicQuestions(path)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	org, err := cfg.Answers.OrgGlossary()
	if err != nil {
		return err
	}
	tr, err := newTranslator(e.translator, e.logger, e.translatorTimeout)
	if err != nil {
		return err
	}
	defer tr.stop()
	reader := rag.NewTopicReader(lexiconFor(org), tr.Translator)
	var thresholds []float64
	for t := 0.10; t < 0.81; t += 0.05 {
		thresholds = append(thresholds, float64(int(t*100+0.5))/100)
	}
	scores := eval.RunTopics(ctx, qs, reader, thresholds)
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(scores)
	}
	fmt.Fprintf(e.stdout, "%s: %d questions, %d needs; pairwise precision and recall of the grouping (translator %s)\n",
		path, len(qs), scores[0].Needs, tr.name)
	fmt.Fprintf(e.stdout, "%9s %7s %9s %7s %7s\n", "threshold", "topics", "precision", "recall", "f1")
	for _, s := range scores {
		mark := ""
		if s.Threshold == rag.DefaultTopicThreshold {
			mark = "  <- default"
		}
		fmt.Fprintf(e.stdout, "%9.2f %7d %9.2f %7.2f %7.2f%s\n", s.Threshold, s.Topics, s.Precision, s.Recall, s.F1, mark)
	}
	return nil
}
