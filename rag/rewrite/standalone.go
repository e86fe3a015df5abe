// Package rewrite turns a conversation's latest message into a standalone query: Offline carries
// the salient terms of earlier turns into short or anaphoric follow-ups without a model, LLM asks
// a chat model and falls back to Offline. Both implement rag.Rewriter.
package rewrite

import (
	"strings"

	"github.com/citahq/cita/rag"
)

// followUpOpeners are how follow-ups start in English and Spanish ("and for staging?", "¿y en
// producción?", "what about his brother?"). Matched on the lower-cased question without its
// leading "¿"/"¡".
var followUpOpeners = []string{
	"and ", "and,", "what about", "how about", "what else", "anything else", "any other", "also ",
	"besides", "what other", "same for", "y ", "y,", "e ", "¿y", "y qué", "y que", "qué hay de", "que hay de",
	"¿qué hay de", "y para", "y en", "y si", "también", "tambien", "además", "ademas", "otra vez",
}

// anaphora are words that point back to something said earlier. "that" is handled apart because
// it is often a relative pronoun ("projects that he led").
var anaphora = set(`it its it's he him his she her hers they them their theirs this these those
such él ella ellos ellas eso esto esa ese esos esas este esta estos estas su sus allí ahí allá
aquel aquella suyo suya`)

// NeedsContext reports whether question does not stand alone and should be rewritten with the
// conversation: it starts like a follow-up, holds a pronoun that points back, or has no name or
// code to anchor it and one content word at most (two in a question of four words or fewer).
func NeedsContext(question string) bool {
	q := strings.TrimSpace(question)
	if q == "" {
		return false
	}
	lower := strings.ToLower(strings.TrimLeft(q, "¿¡ "))
	for _, o := range followUpOpeners {
		if strings.HasPrefix(lower, strings.TrimLeft(o, "¿")) {
			return true
		}
	}
	words := splitWords(q)
	for i, w := range words {
		lw := strings.ToLower(w.text)
		if anaphora[lw] {
			return true
		}
		// "is that", "did that" point back; "projects that" is a relative.
		if lw == "that" && (i == 0 || i == len(words)-1 || isFunction(words[i-1].text)) {
			return true
		}
	}
	content := 0
	anchored := false
	for _, w := range words {
		if isFunction(w.text) {
			continue
		}
		content++
		if w.code || (w.capital && !w.sentenceStart) {
			anchored = true
		}
	}
	return !anchored && (content <= 1 || (content == 2 && len(words) <= 4))
}

// isFunction reports whether w carries no topic: a stopword of rag.ContentTokens or a pronoun.
func isFunction(w string) bool {
	toks := rag.ContentTokens(w)
	if len(toks) == 0 {
		return true
	}
	return anaphora[strings.ToLower(w)] || questionWords[toks[0]]
}

// questionWords are content-free words ContentTokens keeps but that say nothing of the topic.
var questionWords = contentSet(`anyone anything anybody something else other others another happened happen
tell know thing things more much many well really ever still next first last again interesting aspects
article besides qué cuál cuáles cómo dónde cuándo quién algo otro otra otros otras mas más pasó paso
hizo decir dime sabes`)

// contentSet is set over the words' content tokens (lower-cased, unaccented).
func contentSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, t := range rag.ContentTokens(words) {
		m[t] = true
	}
	return m
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
