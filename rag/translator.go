package rag

import (
	"context"
	"slices"

	"github.com/citahq/cita/rag/lang"
)

// Translator translates a search query between Spanish ("es") and English ("en"), so a question
// in one language finds documents written in the other. Implementations live in rag/translate.
// Words the translator does not know (names, codes, typos) should come back as they were: the
// full-text arm corrects only those, never a word that was translated. Translate returns an
// error when the pair is not supported or the translator is unavailable; the searcher then
// searches the query as it is.
type Translator interface {
	Translate(ctx context.Context, text, from, to string) (string, error)
}

// OtherLang returns the other language cita answers in, the one a query in lang is translated
// into: "en" for "es" and the reverse; "" for any other lang (QueryLang never returns one).
func OtherLang(lang string) string {
	switch lang {
	case "es":
		return "en"
	case "en":
		return "es"
	}
	return ""
}

// QueryLang returns the language of a query, "es" or "en", and whether the text said so
// clearly: short queries often do not ("vacaciones", "deploy"), and then it guesses as
// AnswerLang does. Names do not decide it: "How much does the Nariño coffee cost?" is English.
func QueryLang(q string) (code string, sure bool) {
	switch lang.Detect(q) {
	case lang.Spanish:
		return "es", true
	case lang.English:
		return "en", true
	}
	return AnswerLang(q), false
}

// sameWords reports whether a and b hold the same content words: a "translation" that changed
// nothing.
func sameWords(a, b string) bool {
	wa, wb := ContentTokens(a), ContentTokens(b)
	slices.Sort(wa)
	slices.Sort(wb)
	return slices.Equal(wa, wb)
}
