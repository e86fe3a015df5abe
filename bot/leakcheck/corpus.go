package leakcheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// codePrefix starts every canary code: a canary phrase in a document's text, a code in its title
// and one in its path. The oracle finds them all with one expression.
const codePrefix = "QZ"

var codePattern = regexp.MustCompile(`(?i)qz[a-z0-9]{8}`)

// doc is one indexed document of the harness's corpus.
type doc struct {
	id              int64
	groups          []string // who may read it: anyone holding one of them
	topic           string
	title, path     string
	body, titleCode string // codes
	pathCode        string
	bodyText        []string
}

// codeInfo is what the oracle knows of a code: the document it belongs to and where it sits.
type codeInfo struct {
	doc  *doc
	kind string // "canary", "title", "path"
}

// corpus is the harness's documents and their codes.
type corpus struct {
	docs  []*doc
	codes map[string]codeInfo // upper-case code -> owner
}

func newCode(rng *rand.Rand, used map[string]codeInfo) string {
	const alphabet = "ABCDEFGHJKLMNPRSTUVWXY3456789"
	for {
		b := []byte(codePrefix)
		for range 8 {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		if _, dup := used[string(b)]; !dup {
			return string(b)
		}
	}
}

// newCorpus writes two documents per restricted group, two for everyone and one shared by two
// groups, each with its own canary phrase, title code and path code. Every document shares
// words with the others ("canary register", "quarterly budget"), so a search that ignored
// access would find them.
func newCorpus(rng *rand.Rand, o *org) *corpus {
	c := &corpus{codes: map[string]codeInfo{}}
	add := func(groups []string, topic string) {
		d := &doc{groups: groups, topic: topic}
		d.body, d.titleCode, d.pathCode = newCode(rng, c.codes), "", ""
		c.codes[d.body] = codeInfo{d, "canary"}
		d.titleCode = newCode(rng, c.codes)
		c.codes[d.titleCode] = codeInfo{d, "title"}
		d.pathCode = newCode(rng, c.codes)
		c.codes[d.pathCode] = codeInfo{d, "path"}
		d.title = fmt.Sprintf("%s register %s", strings.ToUpper(topic[:1])+topic[1:], d.titleCode)
		d.path = fmt.Sprintf("%s/%s-%s.md", groups[0], topic, strings.ToLower(d.pathCode))
		budget := 1000 + rng.IntN(90000)
		d.bodyText = []string{
			fmt.Sprintf("The %s canary phrase is %s. The %s register lists the quarterly budget of %d euros for the %s team.", topic, d.body, topic, budget, topic),
			fmt.Sprintf("Canary register: every %s review quotes the code %s and the %s budget of %d euros.", topic, d.body, topic, budget),
		}
		c.docs = append(c.docs, d)
	}
	for _, g := range o.groups {
		add([]string{g}, o.topics[g])
		add([]string{g}, o.topics[g])
	}
	add([]string{everyone}, "lobby")
	add([]string{everyone}, "lobby")
	if len(o.groups) >= 2 {
		pair := pickGroups(rng, o.groups, 2)
		add(pair, o.topics[pair[0]])
	}
	// Identity groups: a document shared with the organisation's domain, and one shared with
	// each of three people by their address (as the Drive connector names user permissions).
	add([]string{domainGroup}, domainTopic)
	for _, i := range rng.Perm(len(o.people))[:3] {
		add([]string{o.people[i].email}, "personal")
	}
	return c
}

// byIDs returns the documents refs name (by document id), each once, in the order first named.
func (c *corpus) byIDs(refs []bot.SourceRef) []*doc {
	var out []*doc
	for _, r := range refs {
		for _, d := range c.docs {
			if d.id == r.DocumentID && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// index writes the corpus into store, embedding with emb.
func (c *corpus) index(ctx context.Context, store *pgstore.Store, emb *hashembed.Embedder) error {
	for _, d := range c.docs {
		chunks := make([]rag.Chunk, len(d.bodyText))
		for i, text := range d.bodyText {
			ch := rag.Chunk{Heading: d.title, Content: text}
			ch.Embedding = emb.Vector(ch.Text())
			chunks[i] = ch
		}
		id, _, err := store.ReplaceDocument(ctx, rag.Document{
			Source: "leakcheck", ExternalID: d.path, Title: d.title, Lang: "en", URL: "https://docs.leaks.example/" + d.path,
			UpdatedAt: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), ContentHash: d.path, Groups: d.groups,
		}, chunks)
		if err != nil {
			return fmt.Errorf("index %s: %w", d.path, err)
		}
		d.id = id
	}
	return nil
}

// mayRead reports whether someone holding groups may read d.
func (d *doc) mayRead(groups map[string]bool) bool {
	for _, g := range d.groups {
		if groups[g] {
			return true
		}
	}
	return false
}

// domainTopic is the topic of the document shared with the organisation's domain.
const domainTopic = "domainwide"

// question returns a random question built from the corpus: about a topic's canary phrase,
// register or budget, about every register at once, or naming a canary phrase itself.
func (c *corpus) question(rng *rand.Rand) string {
	d := c.docs[rng.IntN(len(c.docs))]
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("What is the %s canary phrase?", d.topic)
	case 1:
		return fmt.Sprintf("What is the quarterly budget in the %s register?", d.topic)
	case 2:
		return "Which canary codes does the quarterly register list?"
	case 3:
		return fmt.Sprintf("Which team does the code %s belong to?", d.body)
	case 4:
		return fmt.Sprintf("%s review code", d.topic)
	default:
		return fmt.Sprintf("How much is the %s budget and what does the canary register say?", d.topic)
	}
}

// followUp returns a follow-up question that names another topic.
func (c *corpus) followUp(rng *rand.Rand) string {
	d := c.docs[rng.IntN(len(c.docs))]
	if rng.IntN(2) == 0 {
		return fmt.Sprintf("and for %s?", d.topic)
	}
	return "what about its canary phrase?"
}
