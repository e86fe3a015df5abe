package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/citahq/cita/internal/glossary"
)

// AnswersConfig tunes when cita answers, when it gives the closest passages as uncertain, when
// it says it could not find the answer, and the organisation's own vocabulary. Every setting
// changes what an answer says, so cmd/cita hands them to the answering pipeline
// (rag.PipelineOptions) and the searcher's lexicon (app.go), and each is part of the answer
// cache's variant; a setting that only changes how a reply is shown belongs to the chat adapters
// instead (see docs/configuration.md, "Every section, its page, and the layer that owns it").
//
//	answers:
//	  min_evidence: 0.20        # below: "I couldn't find this"; `cita calibrate` suggests one
//	  confident_evidence: 0.35  # below: "the closest I found", said to be uncertain
//	  max_question_chars: 2000  # longer messages get a reason instead of a search
//	  glossary:                 # the organisation's own terms, in the glossary format
//	    - "en: on-call, pager duty | es: guardia, retén"
//	    - "es: Brújula => en: ERP | es: ERP"
//	  glossary_files: [/etc/cita/glossary.txt]
type AnswersConfig struct {
	// MinEvidence is the answer-support score below which the offline answerer abstains; 0
	// means rag.DefaultMinEvidence. With a chat model the guard only skips hopeless cases and
	// the model judges the rest. `cita calibrate` measures it on the organisation's documents.
	MinEvidence float64 `yaml:"min_evidence"`
	// ConfidentEvidence is the score below which an offline reply gives the closest passages
	// as possibly not answering; 0 means rag.DefaultConfidentEvidence. It is never below
	// MinEvidence.
	ConfidentEvidence float64 `yaml:"confident_evidence"`
	// MaxQuestionChars is the longest question searched; 0 means rag.DefaultMaxQuestionChars.
	MaxQuestionChars int `yaml:"max_question_chars"`
	// Glossary are the organisation's own entries, one per item, in the glossary format
	// (package internal/glossary): applied at question time, no re-index needed.
	Glossary []string `yaml:"glossary"`
	// GlossaryFiles are files in the same format, read at start.
	GlossaryFiles []string `yaml:"glossary_files"`
}

func (a AnswersConfig) validate() []error {
	var errs []error
	if a.MinEvidence != 0 && (a.MinEvidence < 0.01 || a.MinEvidence > 1.5) {
		errs = append(errs, fmt.Errorf("answers.min_evidence: %g is out of range; use 0.01-1.5 (0 means the default); `cita calibrate` suggests one", a.MinEvidence))
	}
	if a.ConfidentEvidence != 0 && (a.ConfidentEvidence < 0.01 || a.ConfidentEvidence > 2) {
		errs = append(errs, fmt.Errorf("answers.confident_evidence: %g is out of range; use 0.01-2 (0 means the default); `cita calibrate` suggests one", a.ConfidentEvidence))
	} else if a.ConfidentEvidence != 0 && a.MinEvidence != 0 && a.ConfidentEvidence < a.MinEvidence {
		errs = append(errs, fmt.Errorf("answers.confident_evidence: %g is below answers.min_evidence %g: every reply above the guard would be an answer, none uncertain; set it at or above min_evidence",
			a.ConfidentEvidence, a.MinEvidence))
	}
	if a.MaxQuestionChars != 0 && (a.MaxQuestionChars < 100 || a.MaxQuestionChars > 40000) {
		errs = append(errs, fmt.Errorf("answers.max_question_chars: %d is out of range; use 100-40000 (0 means the default)", a.MaxQuestionChars))
	}
	if _, err := a.OrgGlossary(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// maxGlossaryFileBytes bounds one glossary file: a mistaken path (a log, a binary) fails with a
// clear error instead of being read whole.
const maxGlossaryFileBytes = 8 << 20

// OrgGlossary reads the organisation's glossary: the answers.glossary entries, then every
// answers.glossary_files file. It returns nil when there is none, and an error naming the entry
// or the file and line that does not parse.
func (a AnswersConfig) OrgGlossary() (*glossary.Glossary, error) {
	if len(a.Glossary) == 0 && len(a.GlossaryFiles) == 0 {
		return nil, nil
	}
	out := &glossary.Glossary{Name: "organisation glossary"}
	for i, line := range a.Glossary {
		e, domain, err := glossary.ParseLine(line)
		if err != nil {
			return nil, fmt.Errorf("answers.glossary[%d]: %w", i, err)
		}
		if domain != "" || e == nil {
			return nil, fmt.Errorf("answers.glossary[%d]: %q is not an entry (a domain header or a comment belongs in a file)", i, line)
		}
		e.Origin = fmt.Sprintf("answers.glossary[%d]", i)
		out.Entries = append(out.Entries, *e)
	}
	for _, path := range a.GlossaryFiles {
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("answers.glossary_files: %w", err)
		}
		if info.Size() > maxGlossaryFileBytes {
			return nil, fmt.Errorf("answers.glossary_files: %s is %d bytes, more than %d: not a glossary", path, info.Size(), maxGlossaryFileBytes)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("answers.glossary_files: %w", err)
		}
		g, err := glossary.Parse(strings.NewReader(string(data)), path)
		if err != nil {
			return nil, fmt.Errorf("answers.glossary_files: %w", err)
		}
		out.Entries = append(out.Entries, g.Entries...)
	}
	return out, nil
}
