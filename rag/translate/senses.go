package translate

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/citahq/cita/rag"
)

// A translation keeps one sense per word: the tagger picks one reading of an ambiguous form
// ("seguro": the adverb, "sure"), and the transfer one translation of it ("presupuesto":
// "estimate"). The pair's own data hold them all: the morphological analyser lists every
// reading of a form, and the bilingual dictionary, asked with -b, every translation of a
// reading. Senses runs those two programs of the mode, kept alive like the translation's
// pipeline, and returns what they hold as bridges.

// senseTags are the parts of speech whose senses are bridges: content words, and proper nouns
// (Francia is France). Determiners, pronouns, prepositions, conjunctions and auxiliaries carry
// no topic.
var senseTags = map[string]bool{"n": true, "np": true, "adj": true, "vblex": true, "adv": true}

// maxSenseBridges bounds the bridges of one query (a long question of ambiguous words).
const maxSenseBridges = 60

// sensePipes are one direction's analysers and bilingual dictionaries (pools, as the
// translation's).
type sensePipes struct {
	analyse, bidix *pipelinePool
}

// newSensePipes takes the analyser (the mode's first program) and the bilingual dictionary
// (the lt-proc run with -b) from a mode's stages.
func newSensePipes(mode string, stages []stage, opts ApertiumOptions) (*sensePipes, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("apertium mode %s: no stages", mode)
	}
	var bidix *stage
	for i := range stages {
		if filepath.Base(stages[i].path) != "lt-proc" {
			continue // apertium-transfer takes -b too
		}
		for _, a := range stages[i].args {
			if a == "-b" && bidix == nil {
				bidix = &stages[i]
			}
		}
	}
	if bidix == nil {
		return nil, fmt.Errorf("apertium mode %s: no bilingual dictionary stage (lt-proc -b)", mode)
	}
	mk := func(name string, st stage) *pipelinePool {
		return newPipelinePool(mode+" "+name, opts.Pipelines, func() *pipeline {
			p := newPipeline(mode+" "+name, []stage{st}, opts.Logger)
			p.restartWait = opts.RestartWait
			return p
		})
	}
	return &sensePipes{analyse: mk("analyser", stages[0]), bidix: mk("dictionary", *bidix)}, nil
}

// Senses implements rag.SenseTranslator: for every content word of text (and multiword unit
// the analyser knows, "por persona"), every translation its bilingual dictionary holds for
// every reading of it, as bridges from the word (Via "dictionary"), each at
// rag.OtherSenseWeight. Words the analyser does not know yield none (names, codes, and the
// workplace terms the pair lacks, which the glossary covers). It returns ErrUnsupported for a
// pair other than es-en and en-es, and an error when a program fails or times out.
func (a *Apertium) Senses(ctx context.Context, text, from, to string) ([]rag.Bridge, error) {
	sp := a.senses[from+"-"+to]
	if sp == nil {
		return nil, fmt.Errorf("apertium senses %s-%s: %w", from, to, ErrUnsupported)
	}
	line := streamSafe(text)
	if line == "" {
		return nil, nil
	}
	analysis, err := sp.analyse.translate(ctx, line, a.timeout, a.startTimeout)
	if err != nil {
		return nil, err
	}
	units := parseStream(analysis)
	var readings []string
	var owner []int // the unit each reading came from
	for ui, u := range units {
		for _, r := range u.readings {
			if senseTags[firstTag(r)] {
				readings = append(readings, "^"+r+"$")
				owner = append(owner, ui)
			}
		}
	}
	if len(readings) == 0 {
		return nil, nil
	}
	translated, err := sp.bidix.translate(ctx, strings.Join(readings, " "), a.timeout, a.startTimeout)
	if err != nil {
		return nil, err
	}
	out := parseStream(translated)
	if len(out) != len(readings) {
		return nil, fmt.Errorf("apertium senses %s-%s: %d readings in, %d out", from, to, len(readings), len(out))
	}
	var bridges []rag.Bridge
	seen := map[string]bool{}
	for i, u := range out {
		surface := units[owner[i]].surface
		for _, tr := range u.readings {
			lemma := lemmaOf(tr)
			if lemma == "" || strings.EqualFold(lemma, surface) {
				continue
			}
			key := strings.ToLower(surface + "\x00" + lemma)
			if seen[key] {
				continue
			}
			seen[key] = true
			bridges = append(bridges, rag.Bridge{From: surface, FromLang: from, To: lemma, Lang: to,
				Weight: rag.OtherSenseWeight, Via: rag.ViaDictionary})
			if len(bridges) == maxSenseBridges {
				return bridges, nil
			}
		}
	}
	return bridges, nil
}

// streamUnit is one lexical unit of an Apertium stream: "^surface/reading/reading$" (the
// analyser's) or "^lemma<tags>/translation<tags>/...$" (the bilingual dictionary's, whose
// surface is the reading looked up).
type streamUnit struct {
	surface  string
	readings []string
}

// parseStream reads the lexical units of an Apertium stream, honouring "\" escapes; text
// between units (blanks, punctuation the analyser passes through) is skipped.
func parseStream(s string) []streamUnit {
	var out []streamUnit
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] != '^' {
			continue
		}
		var parts []string
		var b strings.Builder
		j := i + 1
		for ; j < len(s) && s[j] != '$'; j++ {
			switch s[j] {
			case '\\':
				if j+1 < len(s) {
					j++
					b.WriteByte(s[j])
				}
			case '/':
				parts = append(parts, b.String())
				b.Reset()
			default:
				b.WriteByte(s[j])
			}
		}
		parts = append(parts, b.String())
		i = j
		u := streamUnit{surface: parts[0]}
		for _, r := range parts[1:] {
			if r != "" && !strings.HasPrefix(r, "*") && !strings.HasPrefix(r, "@") && !strings.HasPrefix(r, "#") {
				u.readings = append(u.readings, r)
			}
		}
		out = append(out, u)
	}
	return out
}

// firstTag is a reading's part of speech: "n" of "presupuesto<n><m><sg>".
func firstTag(reading string) string {
	_, rest, ok := strings.Cut(reading, "<")
	if !ok {
		return ""
	}
	tag, _, _ := strings.Cut(rest, ">")
	return tag
}

// lemmaOf is a reading's lemma without its tags; Apertium writes a multiword's spaces as they
// are ("sick leave<n>") and its invariable parts after a "#" ("take<vblex># off").
func lemmaOf(reading string) string {
	lemma, rest, _ := strings.Cut(reading, "<")
	if i := strings.Index(rest, "#"); i >= 0 {
		lemma += " " + strings.TrimSpace(rest[i+1:])
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(lemma, "#", " ")), " ")
}

// namingTags are the parts of speech of words that name things.
var namingTags = map[string]bool{"n": true, "np": true}

// NamingWords implements rag.WordClasser with the analyser of lang's direction: it keeps the
// words with a noun or proper-noun reading and the words the analyser does not know (names,
// codes, terms the pair lacks), in order. It returns ErrUnsupported for a language other than
// "es" and "en", and an error when the analyser fails or times out.
func (a *Apertium) NamingWords(ctx context.Context, words []string, lang string) ([]string, error) {
	pair := map[string]string{"es": "es-en", "en": "en-es"}[lang]
	sp := a.senses[pair]
	if sp == nil {
		return nil, fmt.Errorf("apertium word classes %s: %w", lang, ErrUnsupported)
	}
	var out []string
	for _, w := range words {
		line := streamSafe(w)
		if line == "" {
			continue
		}
		analysis, err := sp.analyse.translate(ctx, line, a.timeout, a.startTimeout)
		if err != nil {
			return nil, err
		}
		if naming(parseStream(analysis)) {
			out = append(out, w)
		}
	}
	return out, nil
}

// naming reports whether an analysed word names something: every reading of it a noun or a
// proper noun ("pasado" is also a participle and "finish" a verb: they may not), a code the
// analyser splits ("401k"), or, unknown to the analyser, not shaped like a verb form the
// dictionary lacks ("sobraron").
func naming(units []streamUnit) bool {
	if len(units) > 1 {
		return true // split by the analyser ("401" and "k"): a code
	}
	for _, u := range units {
		if len(u.readings) == 0 {
			return !verbShaped.MatchString(strings.ToLower(u.surface))
		}
		for _, r := range u.readings {
			if !namingTags[firstTag(r)] {
				return false
			}
		}
	}
	return len(units) > 0
}

// verbShaped matches Spanish finite and non-finite verb endings and English -ing/-ed forms that
// an analyser may not know.
var verbShaped = regexp.MustCompile(`(?:aron|ieron|aban|ían|aste|iste|ando|iendo|ado|ido|ados|idos|ing|ed)$`)
