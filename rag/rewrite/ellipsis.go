package rewrite

import (
	"strings"

	"github.com/citahq/cita/rag"
)

// maxEllipticalWords bounds what may follow the opener of an elliptical follow-up ("and in
// Bogotá?", "¿y en Madrid?", "what about SKU-77835?").
const maxEllipticalWords = 4

// substituted rewrites an elliptical follow-up that swaps the one name or code of the previous
// question for a new one: "and in Bogotá?" after "What is the per diem in Madrid?" becomes "What
// is the per diem in Bogotá?". It reports false when the follow-up is not of that shape, or the
// previous question names no single thing to swap.
func substituted(question string, history []rag.Turn) (string, bool) {
	rest, ok := afterOpener(question)
	if !ok || len(splitWords(rest)) > maxEllipticalWords {
		return "", false
	}
	prev := latestUser(history)
	if prev == "" {
		return "", false
	}
	newNames := anchors(rest)
	if len(newNames) == 0 {
		return swappedTail(rest, prev)
	}
	var old []term
	for _, t := range anchors(prev) {
		if !strings.Contains(strings.ToLower(rest), strings.ToLower(strings.Join(t.words, " "))) {
			old = append(old, t)
		}
	}
	if len(old) != 1 {
		return "", false
	}
	from := strings.Join(old[0].words, " ")
	i := strings.Index(prev, from)
	if i < 0 {
		return "", false
	}
	var to []string
	for _, n := range newNames {
		to = append(to, strings.Join(n.words, " "))
	}
	return prev[:i] + strings.Join(to, " ") + prev[i+len(from):], true
}

// tailPrepositions open the phrase a follow-up like "and for staging?" replaces.
var tailPrepositions = set("to for in on at from with en para a de del con desde")

// swappedTail rewrites "and for staging?" after "How do I deploy Tostador to production?" as
// "How do I deploy Tostador to staging?": a follow-up of one or two content words after a
// preposition replaces the words after the previous question's last preposition, when those
// are at most two words ending the question.
func swappedTail(rest, prev string) (string, bool) {
	words := splitWords(rest)
	if len(words) < 2 || !tailPrepositions[strings.ToLower(words[0].text)] {
		return "", false
	}
	var content []string
	for _, w := range words[1:] {
		if !isFunction(w.text) {
			content = append(content, w.text)
		}
	}
	if len(content) == 0 || len(content) > 2 {
		return "", false
	}
	body := strings.TrimRight(prev, "?!. ")
	pw := strings.Fields(body)
	for i := len(pw) - 2; i >= 0 && i >= len(pw)-3; i-- {
		if tailPrepositions[strings.ToLower(pw[i])] {
			return strings.Join(pw[:i+1], " ") + " " + strings.Join(content, " ") + prev[len(body):], true
		}
	}
	return "", false
}

// afterOpener returns the question without its follow-up opener ("and", "¿y", "what about").
func afterOpener(question string) (string, bool) {
	q := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(question), "¿¡"))
	lower := strings.ToLower(q)
	for _, o := range followUpOpeners {
		o = strings.TrimLeft(o, "¿")
		if strings.HasPrefix(lower, o) {
			return strings.TrimSpace(q[len(o):]), true
		}
	}
	return "", false
}

// anchors are the names and codes of a text.
func anchors(text string) []term {
	var out []term
	for _, t := range termsOf(text, false) {
		if t.name || t.score == codeWeight {
			out = append(out, t)
		}
	}
	return out
}

// latestUser returns the text of the conversation's latest user turn.
func latestUser(history []rag.Turn) string {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == "user" {
			return strings.TrimSpace(history[i].Text)
		}
	}
	return ""
}
