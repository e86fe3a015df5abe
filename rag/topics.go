package rag

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/citahq/cita/internal/glossary"
)

// Questions that are the same need, in either language and worded differently ("how many
// vacation days do I get", "¿cuántos días de vacaciones tengo?", "what's my annual leave
// allowance") are one topic. A question's signature is its concepts in one language-neutral
// vocabulary: a glossary entry stands for all of its terms in both languages, a Spanish word
// for its English senses (the translator's bilingual dictionary), an English word for its stem;
// the words of how people ask ("how many", "cuánto", "can I") carry no topic.

// Signature is a question's concepts, each with its weight, normalised to unit length.
type Signature map[string]float64

// TopicReader reads the signatures of questions. Build it with NewTopicReader; it is safe for
// concurrent use.
type TopicReader struct {
	lexicon    *Lexicon
	translator Translator // a SenseTranslator when it lists senses; nil without
}

// NewTopicReader returns a reader with the glossaries of lexicon (nil: none) and the senses of
// translator (nil, or one that lists none: Spanish words keep their own stems).
func NewTopicReader(lexicon *Lexicon, translator Translator) *TopicReader {
	return &TopicReader{lexicon: lexicon, translator: translator}
}

// Concept weights: a glossary entry names the need surely; a word by itself less; the senses of
// one Spanish word share its weight.
const (
	glossaryConceptWeight = 1.5 // spread over the distinct English stems of the entry's terms
	wordConceptWeight     = 1.0
)

// entryWords returns the distinct English stems of an entry's terms (those tagged English or
// untagged), without the question-asking words.
func entryWords(e *glossary.Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, side := range [][]glossary.Term{e.Terms, e.To} {
		for _, t := range side {
			if t.Lang == glossary.Spanish {
				continue
			}
			for _, tok := range answerTokens(t.Text) {
				if st := stemToken(tok, "en"); !seen[st] && !questionWords[tok] && !light[tok] && len([]rune(tok)) > 2 {
					seen[st] = true
					out = append(out, st)
				}
			}
		}
	}
	return out
}

// Signature returns question's signature. A failing translator is not an error: the Spanish
// words then stand for themselves.
func (r *TopicReader) Signature(ctx context.Context, question string) Signature {
	lang, _ := QueryLang(question)
	matches, toks := r.lexicon.match(question, lang)
	sig := Signature{}
	covered := make([]bool, len(toks))
	for _, m := range matches {
		// The entry, and the English words of its terms: related entries ("wifi", "guest
		// wifi") share them.
		words := entryWords(m.t.entry)
		if len(words) == 0 {
			sig["g:"+m.t.entry.Origin] += glossaryConceptWeight
		}
		for _, w := range words {
			sig["en:"+w] += glossaryConceptWeight / math.Sqrt(float64(len(words)))
		}
		for k := m.start; k < m.end; k++ {
			covered[k] = true
		}
	}
	var senses map[string][]string
	if lang == "es" {
		senses = r.senses(ctx, question)
	}
	for i, tok := range toks {
		if covered[i] || light[tok] || questionWords[tok] || len([]rune(tok)) < 2 {
			continue
		}
		if en := senses[tok]; len(en) > 0 {
			for _, s := range en {
				sig["en:"+s] += wordConceptWeight / math.Sqrt(float64(len(en)))
			}
			continue
		}
		sig[lang+":"+stemToken(tok, lang)] += wordConceptWeight
	}
	return sig.normalised()
}

// senses maps each folded word of a Spanish question to the stems of its English senses.
func (r *TopicReader) senses(ctx context.Context, question string) map[string][]string {
	st, ok := r.translator.(SenseTranslator)
	if !ok {
		return nil
	}
	bridges, err := st.Senses(ctx, question, "es", "en")
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, b := range bridges {
		from := answerTokens(b.From)
		to := stemsOf(b.To, "en")
		if len(from) != 1 || len(to) != 1 || seen[from[0]+"\x00"+to[0]] {
			continue // a multiword unit's senses are a phrase: its words stand for themselves
		}
		seen[from[0]+"\x00"+to[0]] = true
		out[from[0]] = append(out[from[0]], to[0])
	}
	return out
}

// questionWords are words of how people ask, in both languages, that answerTokens keeps.
var questionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`cual cuales cuantos cuantas cuanto cuanta donde quien quienes como cuando puedo podemos
	tengo tenemos tiene hay necesito debo deberia hacer saber alguien pregunta
	what which who where when how can could should would need know question anyone anybody`) {
		m[w] = true
	}
	return m
}()

func (s Signature) normalised() Signature {
	var n float64
	for _, w := range s {
		n += w * w
	}
	if n == 0 {
		return s
	}
	n = math.Sqrt(n)
	for k, w := range s {
		s[k] = w / n
	}
	return s
}

// Similarity is the cosine of two signatures, from 0 (nothing shared) to 1.
func Similarity(a, b Signature) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	var dot float64
	for k, w := range a {
		dot += w * b[k]
	}
	return dot
}

// DefaultTopicThreshold is how similar a question must be to a topic to join it, chosen on the
// dev half of testdata/gaps (docs/gaps.md).
const DefaultTopicThreshold = 0.25

// Topics groups questions online: each joins the most similar topic when the similarity
// reaches the threshold, else starts one. A topic's centroid is the normalised sum of its
// members' signatures. It is safe for concurrent use.
type Topics struct {
	mu        sync.Mutex
	threshold float64
	topics    []topicCentroid
	// df counts the questions each concept appeared in, of n: a concept most questions share
	// ("employee", "company", "office") tells less about which need a question is.
	df map[string]int
	n  int
}

type topicCentroid struct {
	id    int64     // the stored topic's id; 0 until it is stored (see SetID)
	sum   Signature // not normalised
	count int
}

// TopicState is one topic as stored: its id, the (not normalised) sum of its members'
// signatures and how many they are.
type TopicState struct {
	ID    int64
	Sum   Signature
	Count int
}

// RestoreTopics returns a grouping that goes on from a stored one: its topics, and how many of
// the n questions grouped so far held each concept (df). threshold <= 0 means
// DefaultTopicThreshold.
func RestoreTopics(threshold float64, topics []TopicState, df map[string]int, n int) *Topics {
	t := NewTopics(threshold)
	for _, s := range topics {
		sum := make(Signature, len(s.Sum))
		for k, w := range s.Sum {
			sum[k] = w
		}
		t.topics = append(t.topics, topicCentroid{id: s.ID, sum: sum, count: s.Count})
	}
	for k, c := range df {
		t.df[k] = c
	}
	t.n = n
	return t
}

// Topic returns topic i as it stands (ID 0 when it was started here and not stored yet).
func (t *Topics) Topic(i int) TopicState {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.topics[i]
	sum := make(Signature, len(c.sum))
	for k, w := range c.sum {
		sum[k] = w
	}
	return TopicState{ID: c.id, Sum: sum, Count: c.count}
}

// SetID records the stored id of topic i.
func (t *Topics) SetID(i int, id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.topics[i].id = id
}

// Len is how many topics there are.
func (t *Topics) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.topics)
}

// DF returns how many of the questions grouped so far held each concept, and how many they are.
func (t *Topics) DF() (map[string]int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.df))
	for k, c := range t.df {
		out[k] = c
	}
	return out, t.n
}

// NewTopics returns an empty grouping; threshold <= 0 means DefaultTopicThreshold.
func NewTopics(threshold float64) *Topics {
	if threshold <= 0 {
		threshold = DefaultTopicThreshold
	}
	return &Topics{threshold: threshold, df: map[string]int{}}
}

// weighed is sig with each concept scaled by its rarity among the questions seen so far,
// normalised.
func (t *Topics) weighed(sig Signature) Signature {
	out := make(Signature, len(sig))
	for k, w := range sig {
		out[k] = w * math.Log(1+float64(t.n+1)/float64(1+t.df[k]))
	}
	return out.normalised()
}

// Assign adds sig to its topic and returns the topic's index (a new one when none is similar
// enough).
func (t *Topics) Assign(sig Signature) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range sig {
		t.df[k]++
	}
	t.n++
	best, bestSim := -1, 0.0
	w := t.weighed(sig)
	for i, c := range t.topics {
		if sim := Similarity(w, t.weighed(c.sum)); sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if best < 0 || bestSim < t.threshold {
		t.topics = append(t.topics, topicCentroid{sum: Signature{}})
		best = len(t.topics) - 1
	}
	c := &t.topics[best]
	for k, w := range sig {
		c.sum[k] += w
	}
	c.count++
	return best
}

// Centroid is the normalised copy of a sum of signatures.
func Centroid(sum Signature) Signature {
	out := make(Signature, len(sum))
	for k, w := range sum {
		out[k] = w
	}
	return out.normalised()
}

// Keys returns a signature's concepts, heaviest first: for storing and explaining a topic.
func (s Signature) Keys() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if s[out[i]] != s[out[j]] {
			return s[out[i]] > s[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
