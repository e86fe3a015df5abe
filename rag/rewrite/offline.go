package rewrite

import (
	"context"
	"strings"

	"github.com/citahq/cita/rag"
)

// Defaults of Offline.
const (
	DefaultMaxTerms = 3
	DefaultMaxWords = 6
)

// Turn weights: the latest user turn and the conversation's opening (its topic: a thread starts
// with what it is about) count fully, the turn before the latest a little less, and the latest
// assistant reply (which names what the follow-up points at) less again.
const (
	latestTurnWeight    = 1.0
	openingTurnWeight   = 1.0
	previousTurnWeight  = 0.7
	assistantTurnWeight = 0.4
	// minTermScore keeps a lone long word of an older turn from being carried.
	minTermScore = 0.9
)

// Offline rewrites follow-ups without a model: when the question does not stand alone (see
// NeedsContext) it appends the most salient terms (names, codes, rare long words) of the
// conversation's opening, the last two user turns and the last assistant reply that the question
// does not already hold. A standalone question is returned unchanged, except that a name of the
// conversation it mentions in part is completed ("clarkson" -> "clarkson Kelly"). The zero value
// is ready to use. An elliptical follow-up that swaps the previous question's one name or code
// ("and in Bogotá?") becomes that question with the name swapped.
type Offline struct {
	MaxTerms int // terms appended at most; 0 means DefaultMaxTerms
	MaxWords int // words appended at most; 0 means DefaultMaxWords
}

var _ rag.Rewriter = Offline{}

// Rewrite implements rag.Rewriter. It never returns an error.
func (o Offline) Rewrite(_ context.Context, question string, history []rag.Turn) (string, error) {
	question = strings.TrimSpace(question)
	if len(history) == 0 {
		return question, nil
	}
	if s, ok := substituted(question, history); ok {
		return s, nil
	}
	var extra []string
	if NeedsContext(question) {
		extra = o.carriedTerms(question, history)
	} else {
		extra = completedNames(question, history)
	}
	if len(extra) == 0 {
		return question, nil
	}
	return question + " " + strings.Join(extra, " "), nil
}

// carriedTerms picks the words to append, most salient term first.
func (o Offline) carriedTerms(question string, history []rag.Turn) []string {
	maxTerms, maxWords := o.MaxTerms, o.MaxWords
	if maxTerms <= 0 {
		maxTerms = DefaultMaxTerms
	}
	if maxWords <= 0 {
		maxWords = DefaultMaxWords
	}
	have := stems(question)
	var out []string
	terms := 0
	for _, t := range rankTerms(weightTurns(history)) {
		if terms == maxTerms || len(out) >= maxWords || t.score < minTermScore {
			break
		}
		var fresh []string
		for _, w := range t.words {
			s := stems(w)
			if len(s) == 0 && len(fresh) > 0 {
				fresh = append(fresh, w) // a connector inside a name: "Fiddler on the Roof"
				continue
			}
			if !subset(s, have) {
				fresh = append(fresh, w)
			}
		}
		fresh = trimConnectors(fresh)
		if len(fresh) == 0 || len(out)+len(fresh) > maxWords {
			continue
		}
		for _, w := range fresh {
			for s := range stems(w) {
				have[s] = true
			}
		}
		out = append(out, fresh...)
		terms++
	}
	return out
}

// completedNames returns the missing words of the conversation's names that a standalone
// question mentions only in part ("did clarkson sell well?" after "Kelly Clarkson"), at most one name.
func completedNames(question string, history []rag.Turn) []string {
	have := stems(question)
	for _, t := range rankTerms(weightTurns(history)) {
		if !t.name || len(t.words) < 2 {
			continue
		}
		var missing []string
		mentioned := false
		for _, w := range t.words {
			s := stems(w)
			switch {
			case len(s) == 0:
			case subset(s, have):
				mentioned = true
			default:
				missing = append(missing, w)
			}
		}
		if mentioned && len(missing) > 0 {
			return trimConnectors(missing)
		}
	}
	return nil
}

// weightTurns selects the turns terms are drawn from, with their weights.
func weightTurns(history []rag.Turn) []weightedTurn {
	var users []int
	lastAssistant := -1
	for i, t := range history {
		if t.Role == "assistant" {
			lastAssistant = i
			continue
		}
		users = append(users, i)
	}
	var out []weightedTurn
	if n := len(users); n > 0 {
		out = append(out, weightedTurn{history[users[n-1]].Text, latestTurnWeight, n == 1})
		if n > 1 {
			out = append(out, weightedTurn{history[users[n-2]].Text, previousTurnWeight, n == 2})
		}
		if n > 2 {
			out = append(out, weightedTurn{history[users[0]].Text, openingTurnWeight, true})
		}
	}
	if lastAssistant >= 0 {
		out = append(out, weightedTurn{history[lastAssistant].Text, assistantTurnWeight, false})
	}
	return out
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// trimConnectors drops function words left at either end once known words were removed.
func trimConnectors(words []string) []string {
	for len(words) > 0 && stopword(words[0]) {
		words = words[1:]
	}
	for len(words) > 0 && stopword(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	return words
}
