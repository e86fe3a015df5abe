package config

import "fmt"

// AnswersConfig tunes when cita answers and when it says it could not find the answer. Both
// settings change what an answer says, so cmd/cita hands them to the answering pipeline
// (rag.PipelineOptions), and min_evidence is part of the answer cache's variant; a setting that
// only changes how a reply is shown belongs to the chat adapters instead (see
// docs/configuration.md, "Every section, its page, and the layer that owns it").
//
//	answers:
//	  min_evidence: 0.20        # the offline relevance guard's threshold; `cita calibrate` suggests one
//	  max_question_chars: 2000  # longer messages get a reason instead of a search
type AnswersConfig struct {
	// MinEvidence is the answer-support score below which the offline answerer abstains; 0
	// means rag.DefaultMinEvidence. With a chat model the guard only skips hopeless cases and
	// the model judges the rest. `cita calibrate` measures it on the organisation's documents.
	MinEvidence float64 `yaml:"min_evidence"`
	// MaxQuestionChars is the longest question searched; 0 means rag.DefaultMaxQuestionChars.
	MaxQuestionChars int `yaml:"max_question_chars"`
}

func (a AnswersConfig) validate() []error {
	var errs []error
	if a.MinEvidence != 0 && (a.MinEvidence < 0.01 || a.MinEvidence > 1.5) {
		errs = append(errs, fmt.Errorf("answers.min_evidence: %g is out of range; use 0.01-1.5 (0 means the default); `cita calibrate` suggests one", a.MinEvidence))
	}
	if a.MaxQuestionChars != 0 && (a.MaxQuestionChars < 100 || a.MaxQuestionChars > 40000) {
		errs = append(errs, fmt.Errorf("answers.max_question_chars: %d is out of range; use 100-40000 (0 means the default)", a.MaxQuestionChars))
	}
	return errs
}
