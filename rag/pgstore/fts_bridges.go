package pgstore

import (
	"strings"

	"github.com/citahq/cita/rag"
)

// bridgeGroupBase numbers the groups of bridge words that count apart from every asked word:
// above any question's word count.
const bridgeGroupBase = 1 << 20

// bridgedWords are the words of a query's bridges, each with the group it counts in (the asked
// word it renders, or a group of its own) and its weight.
type bridgedWords struct {
	words  []string
	group  []int
	weight []float64
}

// bridgeWords splits bridges into words. The renderings of one asked word count with that word
// (a chunk scores the best of them once); those of a phrase, or all of them when apart is set
// (the translated part, scored apart from the asked words), in a group per phrase.
func bridgeWords(bridges []rag.Bridge, asked []string, apart bool) bridgedWords {
	var out bridgedWords
	askedAt := map[string]int{}
	for i, w := range asked {
		if _, ok := askedAt[strings.ToLower(w)]; !ok {
			askedAt[strings.ToLower(w)] = i + 1
		}
	}
	phraseGroup := map[string]int{}
	for _, b := range bridges {
		group, ok := askedAt[strings.ToLower(b.From)]
		if !ok || apart {
			g, seen := phraseGroup[b.From]
			if !seen {
				g = bridgeGroupBase + len(phraseGroup)
				phraseGroup[b.From] = g
			}
			group = g
		}
		for _, w := range queryWords(b.To) {
			out.words = append(out.words, w)
			out.group = append(out.group, group)
			out.weight = append(out.weight, b.Weight)
		}
	}
	return out
}

// weigh moves the terms of the bridge words (numbered after the first n words) into their
// groups at their bridges' weights, and drops a bridge lexeme that the query's other words
// already search.
func (b bridgedWords) weigh(terms []queryTerm, n int) []queryTerm {
	if len(b.words) == 0 {
		return terms
	}
	own := map[string]bool{}
	for _, t := range terms {
		if t.Word <= n {
			own[t.Kind+t.Lexeme] = true
		}
	}
	out := terms[:0]
	for _, t := range terms {
		if t.Word > n {
			i := t.Word - n - 1
			if own[t.Kind+t.Lexeme] {
				continue
			}
			t.Word, t.Weight, t.Bridge = b.group[i], t.Weight*b.weight[i], true
		}
		out = append(out, t)
	}
	return out
}
