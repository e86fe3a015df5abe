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
		return "", false
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
