// Package bench measures indexing and retrieval on synthetic corpora: realistic chunk lengths,
// a Zipf-distributed vocabulary of Spanish- and English-looking words, codes and amounts, and ten
// access groups so that a one-group scope keeps about 10% of the chunks.
package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

const groupCount = 10

// topicCount is how many subjects the synthetic organisation writes about: real document
// collections are topical (a handbook, runbooks, price lists), and a corpus of words drawn at
// random from one vocabulary has no neighbourhoods for a vector index to navigate.
const topicCount = 200

// corpusGen makes deterministic synthetic text.
type corpusGen struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
	// topics[t] is topic t's own words, drawn with topicZipf.
	topics    [][]string
	topicZipf *rand.Zipf
}

func newCorpusGen(seed uint64) *corpusGen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	syll := strings.Fields("ca fe ta ra lo mi sa con pro de ven ex por ti on al men to ri da go ne pa la ver tro cli en mar sol gen dor")
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 30000 {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	g := &corpusGen{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1)), vocab: vocab}
	const topicWords = 400
	for t := 0; t < topicCount; t++ {
		words := make([]string, topicWords)
		for i := range words {
			words[i] = vocab[500+rng.IntN(len(vocab)-500)] // the 500 commonest words belong to no topic
		}
		g.topics = append(g.topics, words)
	}
	g.topicZipf = rand.NewZipf(rng, 1.1, 4, topicWords-1)
	return g
}

// topicOf is the subject of document d.
func (g *corpusGen) topicOf(d int) int { return (d * 7919) % topicCount }

// chunkText returns 120-260 words about topic, with the odd code or amount, like a policy
// paragraph: about half the words are the topic's own, the rest common words.
func (g *corpusGen) chunkText(topic int) string {
	n := 120 + g.rng.IntN(140)
	words := make([]string, n)
	for i := range words {
		switch r := g.rng.IntN(200); {
		case r == 0:
			words[i] = fmt.Sprintf("ERR_%04d", g.rng.IntN(10000))
		case r == 1:
			words[i] = fmt.Sprintf("%d.%03d.%03d", 1+g.rng.IntN(99), g.rng.IntN(1000), g.rng.IntN(1000))
		case r%2 == 0:
			words[i] = g.topics[topic][g.topicZipf.Uint64()]
		default:
			words[i] = g.vocab[g.zipf.Uint64()]
		}
	}
	return strings.Join(words, " ")
}

// queryFrom picks 3-6 words of a chunk, the way a person half-remembers a passage.
func (g *corpusGen) queryFrom(text string) string {
	words := strings.Fields(text)
	n := 3 + g.rng.IntN(4)
	start := g.rng.IntN(max(1, len(words)-n*3))
	var q []string
	for i := 0; i < n && start+i*2 < len(words); i++ {
		q = append(q, words[start+i*2])
	}
	return strings.Join(q, " ")
}
