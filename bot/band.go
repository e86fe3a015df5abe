package bot

import (
	"fmt"

	"github.com/citahq/cita/rag"
)

// BandText says where the thresholds of the three kinds of reply sat for rec, for "How I
// answered": "; not found below 0.20, unsure below 0.35", or "" when no band applied (a model
// judged, a cached answer).
func BandText(rec *AnswerRecord) string {
	if rec.MinEvidence <= 0 {
		return ""
	}
	s := fmt.Sprintf("; not found below %.2f", rec.MinEvidence)
	if rec.ConfidentEvidence > 0 {
		s += fmt.Sprintf(", unsure below %.2f", rec.ConfidentEvidence)
	}
	return s
}

// HedgeWhy says in words why a reply was hedged (rag.Answer.HedgeReason).
func HedgeWhy(reason string) string {
	switch reason {
	case rag.HedgeUncertain:
		return "the passages match the question only in part"
	case rag.HedgeUnknownName:
		return "the question names something no passage mentions"
	case rag.HedgeUnknownWord:
		return "the question is about something no document you may read mentions"
	case rag.HedgeKeyNotLocal:
		return "the best passage does not say what the question is about"
	}
	return reason
}
