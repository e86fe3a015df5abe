package rag

import "context"

// Translator translates a search query between Spanish ("es") and English ("en"), so a question
// in one language finds documents written in the other. Implementations live in rag/translate.
// Translate returns an error when the pair is not supported or the translator is unavailable;
// the searcher then searches the query as it is.
type Translator interface {
	Translate(ctx context.Context, text, from, to string) (string, error)
}

// OtherLang returns the language a query in lang is translated into: "en" for "es" and the
// reverse.
func OtherLang(lang string) string {
	if lang == "es" {
		return "en"
	}
	return "es"
}
