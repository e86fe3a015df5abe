package rewrite

import (
	"slices"
	"strings"

	"github.com/citahq/cita/rag"
)

// term is a candidate to carry into a follow-up: a name ("Andrew Carnegie"), a code, a number or
// a rare long word, with its accumulated salience.
type term struct {
	words []string // as written
	key   string   // content tokens joined, for merging mentions
	score float64
	first int  // order of first sighting, for stable ties
	name  bool // a run of capitalised words
}

// Salience weights of the kinds of term, per mention.
const (
	nameWeight       = 3.0
	nameExtraWord    = 0.5 // per word beyond the first: "Mary Chapin Carpenter" beats "Carpenter"
	codeWeight       = 2.5
	numberWeight     = 0.8
	longWordWeight   = 1.0
	longWordMinRunes = 7
	// Shorter content words ("deploy", "salary") are carried only from the latest turn.
	mediumWordWeight   = 0.9
	mediumWordMinRunes = 5
)

// connectors may sit inside a name ("Fiddler on the Roof", "Banco de España").
var connectors = set("of on the a an and for de del la las los el y en")

// termsOf returns the salient terms of one turn with their per-mention scores. An opening turn
// that is short and has no question mark reads as the conversation's title ("Andrew Carnegie",
// "Deploy runbook"): all its capitalised words count as names, even the first.
func termsOf(text string, opening bool) []term {
	words := splitWords(text)
	titleLike := opening && len(words) <= 8 && !strings.ContainsAny(text, "?¿")
	var out []term
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w.capital && !w.code && !isFunction(w.text):
			run := []string{w.text}
			j := i + 1
			for j < len(words) {
				if words[j].capital && !words[j].sentenceStart && !isFunction(words[j].text) {
					run = append(run, words[j].text)
					j++
					continue
				}
				// up to two lower-case connectors followed by a capitalised word stay in the name
				k := j
				for k < len(words) && k-j < 2 && connectors[words[k].text] {
					k++
				}
				if k > j && k < len(words) && words[k].capital && !words[k].sentenceStart && !isFunction(words[k].text) {
					for ; j < k; j++ {
						run = append(run, words[j].text)
					}
					continue
				}
				break
			}
			i = j - 1
			switch {
			case len(run) > 1 || !w.sentenceStart || titleLike:
				out = append(out, term{words: run, score: nameWeight + nameExtraWord*float64(len(run)-1), name: true})
			case len([]rune(w.text)) >= longWordMinRunes:
				out = append(out, term{words: run, score: longWordWeight})
			}
		case w.code:
			out = append(out, term{words: []string{w.text}, score: codeWeight})
		case w.number:
			out = append(out, term{words: []string{w.text}, score: numberWeight})
		case !isFunction(w.text) && len([]rune(w.text)) >= longWordMinRunes:
			out = append(out, term{words: []string{w.text}, score: longWordWeight})
		case !isFunction(w.text) && len([]rune(w.text)) >= mediumWordMinRunes:
			out = append(out, term{words: []string{w.text}, score: mediumWordWeight})
		}
	}
	for i := range out {
		out[i].key = strings.Join(rag.ContentTokens(strings.Join(out[i].words, " ")), " ")
	}
	return out
}

// weightedTurn is a turn's text with how much its terms count.
type weightedTurn struct {
	text    string
	weight  float64
	opening bool // the conversation's first user turn
}

// rankTerms merges the terms of the turns, weighting each mention by its turn, and returns them
// most salient first. A term mentioned in several turns (the conversation's topic) adds up, and a
// one-word term that is part of a longer name lends half its score to that name.
func rankTerms(turns []weightedTurn) []term {
	byKey := map[string]*term{}
	var order []*term
	for _, t := range turns {
		seen := map[string]bool{}
		for _, c := range termsOf(t.text, t.opening) {
			if c.key == "" || seen[c.key] {
				continue
			}
			seen[c.key] = true
			if have, ok := byKey[c.key]; ok {
				have.score += c.score * t.weight
				continue
			}
			c.score *= t.weight
			c.first = len(order)
			byKey[c.key] = &c
			order = append(order, &c)
		}
	}
	out := make([]term, len(order))
	for i, t := range order {
		out[i] = *t
		for _, o := range order {
			if o != t && len(o.words) < len(t.words) && containsAll(strings.Fields(t.key), strings.Fields(o.key)) {
				out[i].score += o.score / 2
			}
		}
	}
	slices.SortStableFunc(out, func(a, b term) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.first - b.first
	})
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
