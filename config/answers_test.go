package config

import "testing"

// TestAnswersSection loads the answers section from YAML: the defaults stay zero (the pipeline
// applies rag's defaults), values in range load unchanged, and a value out of range is refused
// with the field, the value and the range.
func TestAnswersSection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, yaml  string
		minEvidence float64
		maxChars    int
		err         []string
	}{
		{name: "unset: the pipeline's defaults", yaml: ""},
		{name: "zero: the defaults", yaml: "answers:\n  min_evidence: 0\n  max_question_chars: 0\n"},
		{name: "a stricter guard", yaml: "answers:\n  min_evidence: 0.35\n", minEvidence: 0.35},
		{name: "the lowest threshold", yaml: "answers:\n  min_evidence: 0.01\n", minEvidence: 0.01},
		{name: "the highest threshold", yaml: "answers:\n  min_evidence: 1.5\n", minEvidence: 1.5},
		{name: "a longer question", yaml: "answers:\n  max_question_chars: 8000\n", maxChars: 8000},
		{name: "the shortest limit", yaml: "answers:\n  max_question_chars: 100\n", maxChars: 100},
		{name: "the longest limit", yaml: "answers:\n  max_question_chars: 40000\n", maxChars: 40000},
		{name: "negative threshold", yaml: "answers:\n  min_evidence: -0.1\n",
			err: []string{"answers.min_evidence", "-0.1", "0.01-1.5", "cita calibrate"}},
		{name: "threshold below the range", yaml: "answers:\n  min_evidence: 0.001\n",
			err: []string{"answers.min_evidence", "0.001", "0.01-1.5"}},
		{name: "threshold above the range", yaml: "answers:\n  min_evidence: 2\n",
			err: []string{"answers.min_evidence", "2 is out of range", "0.01-1.5"}},
		{name: "question limit too short", yaml: "answers:\n  max_question_chars: 50\n",
			err: []string{"answers.max_question_chars", "50", "100-40000"}},
		{name: "question limit too long", yaml: "answers:\n  max_question_chars: 50000\n",
			err: []string{"answers.max_question_chars", "50000", "100-40000"}},
		{name: "negative question limit", yaml: "answers:\n  max_question_chars: -1\n",
			err: []string{"answers.max_question_chars", "-1"}},
		{name: "both wrong: both named", yaml: "answers:\n  min_evidence: 3\n  max_question_chars: 1\n",
			err: []string{"answers.min_evidence", "answers.max_question_chars"}},
		{name: "a misspelt field", yaml: "answers:\n  min_evidense: 0.3\n", err: []string{"min_evidense"}},
		{name: "not a number", yaml: "answers:\n  min_evidence: high\n", err: []string{"high"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(writeTemp(t, c.yaml))
			checkErr(t, err, c.err...)
			if err != nil {
				return
			}
			if cfg.Answers.MinEvidence != c.minEvidence || cfg.Answers.MaxQuestionChars != c.maxChars {
				t.Errorf("answers = %+v, want min_evidence %g, max_question_chars %d", cfg.Answers, c.minEvidence, c.maxChars)
			}
		})
	}
}
