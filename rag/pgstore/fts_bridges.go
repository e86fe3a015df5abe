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
	from   map[int]string // a phrase group's question words
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
				if out.from == nil {
					out.from = map[int]string{}
				}
				out.from[g] = b.From
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
// It also returns the groups some readable document holds a rendering of, the dropped ones
// included (a rendering the translation already searches is known all the same).
func (b bridgedWords) weigh(terms []queryTerm, n int) ([]queryTerm, map[int]bool) {
	if len(b.words) == 0 {
		return terms, nil
	}
	own := map[string]bool{}
	for _, t := range terms {
		if t.Word <= n {
			own[t.Kind+t.Lexeme] = true
		}
	}
	found := map[int]bool{}
	out := terms[:0]
	for _, t := range terms {
		if t.Word > n {
			i := t.Word - n - 1
			if t.DF > 0 {
				found[b.group[i]] = true
			}
			if own[t.Kind+t.Lexeme] {
				continue
			}
			t.Word, t.Weight, t.Bridge = b.group[i], t.Weight*b.weight[i], true
		}
		out = append(out, t)
	}
	return out, found
}

// minKnownSimilarity is how close a correction must be for the corrected word to count as a
// word the documents use (a typo of it), not an unknown one ("payday" is not "pay").
const minKnownSimilarity = 0.5

// wordNotes says, as trace labels, which of the question's words the readable documents use.
// The asked part (FTSAll, FTSAsked) labels "?word" each asked word (not a stopword) that
// neither it, nor a close correction, nor a rendering searched with it (bridges) is found in;
// the translated part (FTSExtra) labels "+word" each question word it found a rendering or a
// close correction of. A word unknown to the asked part and found by the translated part is
// known: rag.Hybrid merges the two. Every count behind them is the scope's own.
func wordNotes(part rag.FTSPart, asked []string, byWord map[int][]queryTerm, terms []queryTerm, b bridgedWords, rendered map[int]bool) []string {
	known := map[string]bool{}
	mark := func(word string) {
		known[rag.FoldWord(word)] = true
	}
	for g := range rendered {
		switch {
		case g >= bridgeGroupBase:
			for _, w := range queryWords(b.from[g]) {
				mark(w)
			}
		case g >= 1 && g <= len(asked):
			mark(asked[g-1])
		}
	}
	for _, t := range terms {
		switch {
		case t.Fuzzy && t.Weight < minKnownSimilarity:
		case part == rag.FTSExtra && !t.Fuzzy && !t.Bridge:
			// The asked words' own lexemes are the asked part's to report.
		case t.Word >= 1 && t.Word <= len(asked):
			mark(asked[t.Word-1])
		case t.Word >= bridgeGroupBase:
			for _, w := range queryWords(b.from[t.Word]) {
				mark(w)
			}
		}
	}
	var notes []string
	seen := map[string]bool{}
	for i, w := range asked {
		f := rag.FoldWord(w)
		if seen[f] {
			continue
		}
		seen[f] = true
		switch {
		case part == rag.FTSExtra && known[f]:
			notes = append(notes, rag.KnownWordLabel+f)
		case part != rag.FTSExtra && !known[f] && len(byWord[i+1]) > 0:
			notes = append(notes, rag.UnknownWordLabel+w) // as asked: a word's class is read from its form
		}
	}
	if part == rag.FTSExtra {
		for _, phrase := range b.from {
			for _, w := range queryWords(phrase) {
				if f := rag.FoldWord(w); known[f] && !seen[f] {
					seen[f] = true
					notes = append(notes, rag.KnownWordLabel+f)
				}
			}
		}
	}
	return notes
}
