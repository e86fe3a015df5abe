package rag

// An offline reply is one of three kinds, and a person in the channel must be able to tell
// them apart: an answer (the passages state it), a hedged reply (the closest passages, said to
// be possibly not the answer) and "I couldn't find this". No single score separates the
// passage that answers from the one sharing a word with the question, so the band takes the
// score and what the passages say of the question's own words.

// DefaultConfidentEvidence is where the support score alone stops being uncertain, measured
// with `cita eval --answers` on the project's dev and validation handbooks (README, "Answering
// quality"): the lowest score at which, together with the checks in replyBand, about three
// in four right answers stay answers while about one in four out-of-handbook questions still get
// one. `cita calibrate` measures it on an organisation's own documents.
const DefaultConfidentEvidence = 0.35

// sureMargin is how far above the confident threshold a score needs no other check.
const sureMargin = 0.30

// Reasons a reply is hedged (Answer.HedgeReason).
const (
	HedgeUncertain   = "uncertain_evidence" // the score is in the band between the two thresholds
	HedgeUnknownName = "unknown_name"       // the question names something no source mentions
	HedgeUnknownWord = "unknown_word"       // a word naming the question's subject that no readable document uses
	HedgeKeyNotLocal = "key_not_local"      // the direct answer does not say the question's key word, and the score is not high
)

// replyBand says whether a reply whose evidence passed the guard (minEvidence) is an answer,
// or hedged and why ("" for an answer).
//
//   - The score below confident: hedged.
//   - The question names something (a place, a product) no source mentions: hedged, whatever
//     the score ("Berlin" where the table lists other cities).
//   - A word of the question that may name its subject (a noun, a name: see WordClasser) and
//     that no readable document uses at all: the passages share words with the question but
//     not what it is about ("dentista" beside a passage on health insurance).
//   - Otherwise a score sureMargin above confident stands on its own; between the two, the
//     direct answer must say the question's key word where it stands.
func replyBand(rep SupportReport, confident float64) string {
	switch {
	case len(rep.UnknownNames) > 0:
		return HedgeUnknownName
	case len(rep.UnknownWords) > 0:
		return HedgeUnknownWord
	case rep.Score < confident:
		return HedgeUncertain
	case rep.Score < confident+sureMargin && !rep.Answerability.KeyLocal:
		return HedgeKeyNotLocal
	}
	return ""
}
