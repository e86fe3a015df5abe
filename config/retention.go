package config

import (
	"fmt"
	"time"
)

// DefaultAnswerRetention is how long answer records and conversation turns are kept by default.
const DefaultAnswerRetention = 90 * 24 * time.Hour

// RetentionConfig bounds how long cita keeps what it wrote down about conversations.
type RetentionConfig struct {
	// Answers is how long answer records (question, answer text, cited titles, trace) and the
	// conversation turns built on them are kept, in hours: default 2160h (90 days), at least 1h,
	// at most 87600h (10 years). They hold copies of document text; `cita serve` deletes older
	// ones every hour, and at once redacts answers whose documents were deleted or no longer
	// reach the answer's audience (see docs/production.md, "Retention").
	Answers time.Duration `yaml:"answers"`
}

// WithDefaults returns r with the default of every unset field.
func (r RetentionConfig) WithDefaults() RetentionConfig {
	if r.Answers == 0 {
		r.Answers = DefaultAnswerRetention
	}
	return r
}

func (r RetentionConfig) validate() []error {
	if r.Answers != 0 && (r.Answers < time.Hour || r.Answers > 10*365*24*time.Hour) {
		return []error{fmt.Errorf("retention.answers: %s is out of range; keep answers between 1h and 87600h (10 years), e.g. 2160h for 90 days", r.Answers)}
	}
	return nil
}
