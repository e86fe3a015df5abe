package rag

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxQuestionChars is the longest question, in characters, that is searched; a longer
// message is a pasted document or log more often than a question, and would be searched as a
// bag of hundreds of words that matches everything a little.
const DefaultMaxQuestionChars = 2000

// Abstention reasons of messages that are not searched.
const (
	// AbstainNotAQuestion: the message has no letter or digit (emoji, symbols, punctuation).
	AbstainNotAQuestion = "not_a_question"
	// AbstainTooLong: the message is longer than the limit.
	AbstainTooLong = "too_long"
)

// CleanQuestion returns text as valid UTF-8 without control characters (newlines and tabs
// become spaces), trimmed: what is searched and stored. A NUL, an escape sequence or a stray
// invalid byte never reaches the search or the database.
func CleanQuestion(text string) string {
	text = strings.ToValidUTF8(text, " ")
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteRune(' ')
		case unicode.IsControl(r), r == '\u200b', r == '\ufeff':
			// dropped: C0 and C1 controls, zero-width space, byte-order mark
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// notSearchable returns why a cleaned question is not searched ("" when it is): it holds no
// letter or digit, or it is longer than maxChars characters.
func notSearchable(text string, maxChars int) string {
	if utf8.RuneCountInString(text) > maxChars {
		return AbstainTooLong
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return ""
		}
	}
	return AbstainNotAQuestion
}

// unsearchableText is the reply to a message that is not searched, in lang.
func unsearchableText(reason, lang string, maxChars int) string {
	p := phrasesFor(lang)
	if reason == AbstainTooLong {
		return strings.ReplaceAll(p.TooLong, "%d", formatCount(maxChars, lang))
	}
	return p.NotAQuestion
}

// formatCount writes n with the thousands separator of lang ("2,000"; "2.000").
func formatCount(n int, lang string) string {
	digits := strconv.Itoa(n)
	sep := ","
	if lang == "es" {
		sep = "."
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(d)
	}
	return b.String()
}
