package rag

import (
	"errors"
	"fmt"
	"time"
)

// ModelError is a failed call to the chat model's endpoint with the HTTP status of its last
// response, so that an answer given without the model can say what happened.
type ModelError struct {
	Status int
	Err    error
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// modelStatus returns the HTTP status err carries (0 when none).
func modelStatus(err error) int {
	var me *ModelError
	if errors.As(err, &me) {
		return me.Status
	}
	return 0
}

// Why an answer was composed offline instead of by the model.
const (
	fallbackTimeout      = "timeout"
	fallbackError        = "error"
	fallbackBadCitations = "bad_citations"
)

// FallbackNoticeText labels an answer the offline composer wrote because the model did not give
// a usable one, in lang: it timed out (after timeout, its last reply an error status when status
// is not 0), it failed (status, 0 when no response arrived), or its reply cited sources that do
// not exist.
func FallbackNoticeText(lang, why string, timeout time.Duration, status int) string {
	p := phrasesFor(lang)
	switch why {
	case fallbackBadCitations:
		return p.ModelBadCitations
	case fallbackError:
		return fmt.Sprintf(p.ModelFailed, failureName(lang, status))
	}
	if status != 0 {
		return fmt.Sprintf(p.ModelTimedOutFailing, timeout, status)
	}
	return fmt.Sprintf(p.ModelTimedOut, timeout)
}

func failureName(lang string, status int) string {
	switch {
	case status != 0:
		return fmt.Sprintf("HTTP %d", status)
	case lang == "es":
		return "sin respuesta"
	}
	return "no response"
}
