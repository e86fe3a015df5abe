package rag

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

// Extractive composes answers offline: the sentences of the top sources that best match the
// question, each followed by its [n]. It never invents text.
type Extractive struct {
	MaxSentences  int // default 3
	PerSourceMax  int // default 2
	MinTokenMatch int // a sentence must share at least this many query stems; default 1
}

type scoredSentence struct {
	text   string
	source int // index into sources
	order  int // position within the source
	score  float64
}

// Compose implements Composer. It returns an empty text when no sentence matches the question.
func (e Extractive) Compose(_ context.Context, req ComposeRequest, onDelta func(string)) (*Composition, error) {
	maxS, perSource, minMatch := e.MaxSentences, e.PerSourceMax, e.MinTokenMatch
	if maxS <= 0 {
		maxS = 3
	}
	if perSource <= 0 {
		perSource = 2
	}
	if minMatch <= 0 {
		minMatch = 1
	}
	query := stemSet(ContentTokens(req.Question))
	wantsNumber := asksForQuantity(req.Question)
	var cands []scoredSentence
	for si, src := range req.Sources {
		for oi, sent := range answerUnits(src.Content) {
			toks := ContentTokens(sent)
			if len(toks) < 3 {
				continue
			}
			matched := 0
			weight := 0.0
			seen := map[string]bool{}
			for _, t := range toks {
				st := TokenStem(t)
				if query[st] && !seen[st] {
					seen[st] = true
					matched++
					weight += 1 + math.Min(float64(len(t)), 12)/6 // longer words are rarer
				}
			}
			if matched < minMatch {
				continue
			}
			score := weight / math.Sqrt(float64(len(toks))+4) / (1 + 0.25*float64(si))
			if wantsNumber && strings.ContainsAny(sent, "0123456789") {
				score *= 1.6 // "how many days?" is answered by the line that has the number
			}
			cands = append(cands, scoredSentence{text: sent, source: si, order: oi, score: score})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var picked []scoredSentence
	count := map[int]int{}
	for _, c := range cands {
		if len(picked) == maxS {
			break
		}
		if count[c.source] == perSource {
			continue
		}
		count[c.source]++
		picked = append(picked, c)
	}
	if len(picked) == 0 {
		return &Composition{}, nil
	}
	// Read the newest source first (when sources disagree the newest wins), then in source
	// order and document order, so the answer flows.
	sort.SliceStable(picked, func(i, j int) bool {
		si, sj := req.Sources[picked[i].source], req.Sources[picked[j].source]
		if picked[i].source != picked[j].source {
			if sameDocumentFamily(si.Title, sj.Title) && !si.UpdatedAt.Equal(sj.UpdatedAt) {
				return si.UpdatedAt.After(sj.UpdatedAt)
			}
			return picked[i].source < picked[j].source
		}
		return picked[i].order < picked[j].order
	})
	var b strings.Builder
	b.WriteString(phrasesFor(req.Lang).Intro)
	for _, p := range picked {
		fmt.Fprintf(&b, "\n- %s [%d]", strings.TrimSpace(p.text), req.Sources[p.source].N)
	}
	if older, newer, ok := versionConflict(req.Sources, picked); ok {
		b.WriteString("\n" + fmt.Sprintf(phrasesFor(req.Lang).NewerSource, older.N, newer.N, newer.N))
	}
	text := b.String()
	if onDelta != nil {
		onDelta(text)
	}
	return &Composition{Text: text, Usage: Usage{Model: "extractive"}}, nil
}

func stemSet(toks []string) map[string]bool {
	m := make(map[string]bool, len(toks))
	for _, t := range toks {
		m[TokenStem(t)] = true
	}
	return m
}

// Sentences splits text into sentences and lines: table rows and list items stay whole.
func Sentences(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.Trim(line, "|-: ") == "" {
			continue
		}
		// A Markdown table's header row says nothing on its own: skip it (its rows follow).
		if strings.HasPrefix(line, "|") && i+1 < len(lines) && strings.Trim(strings.TrimSpace(lines[i+1]), "|-: ") == "" && strings.Contains(lines[i+1], "-") {
			continue
		}
		start := 0
		runes := []rune(line)
		for i := 0; i < len(runes); i++ {
			r := runes[i]
			if (r == '.' || r == '?' || r == '!') && i+1 < len(runes) && unicode.IsSpace(runes[i+1]) &&
				i+2 < len(runes) && (unicode.IsUpper(runes[i+2]) || runes[i+2] == '¿' || runes[i+2] == '¡') {
				out = append(out, strings.TrimSpace(string(runes[start:i+1])))
				start = i + 1
			}
		}
		if s := strings.TrimSpace(string(runes[start:])); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// versionConflict finds two cited sources that are versions of one document (titles equal but
// for years and numbers) with different update dates: the offline composer cannot judge whether
// they disagree, so it says which one is newer.
func versionConflict(sources []Source, picked []scoredSentence) (older, newer Source, ok bool) {
	cited := map[int]bool{}
	for _, p := range picked {
		cited[p.source] = true
	}
	for i := range sources {
		for j := range sources {
			a, b := sources[i], sources[j]
			if i == j || !cited[i] || !cited[j] || a.DocumentID == b.DocumentID {
				continue
			}
			if sameDocumentFamily(a.Title, b.Title) && a.UpdatedAt.Before(b.UpdatedAt) {
				return a, b, true
			}
		}
	}
	return Source{}, Source{}, false
}

// sameDocumentFamily reports whether two titles name versions of one document: their words,
// ignoring years and numbers, overlap by at least 60% ("Business Travel Policy" and "Travel
// Policy 2025").
func sameDocumentFamily(a, b string) bool {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
			m[w] = true
		}
		return m
	}
	wa, wb := words(a), words(b)
	if len(wa) < 2 || len(wb) < 2 {
		return len(wa) > 0 && len(wa) == len(wb) && strings.EqualFold(a, b)
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	return float64(inter)/float64(union) >= 0.6
}

// asksForQuantity reports whether a question asks for a number, an amount or a date.
func asksForQuantity(q string) bool {
	q = strings.ToLower(q)
	for _, cue := range []string{"how many", "how much", "how long", "when ", "what is the price", "what's the price",
		"cuánt", "cuant", "cuándo", "cuando", "precio", "price", "rate", "tarifa", "salario", "salary"} {
		if strings.Contains(q, cue) {
			return true
		}
	}
	return false
}

// answerUnits splits a chunk into the pieces an extractive answer may quote: sentences, list
// items, and table rows rewritten as "header: value; header: value" so that a row quoted alone
// still says what its numbers are ("Oficina: Medellín; Días por año de servicio: 15 días
// hábiles").
func answerUnits(text string) []string {
	var out []string
	var header []string
	lines := strings.Split(text, "\n")
	var prose []string
	flush := func() {
		if len(prose) > 0 {
			out = append(out, Sentences(strings.Join(prose, "\n"))...)
			prose = prose[:0]
		}
	}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		isRow := strings.HasPrefix(line, "|") && strings.HasSuffix(line, "|")
		if !isRow {
			header = nil
			prose = append(prose, raw)
			continue
		}
		flush()
		cells := tableCells(line)
		if strings.Trim(line, "|-: ") == "" {
			continue // the separator row
		}
		if i+1 < len(lines) && isSeparator(lines[i+1]) {
			header = cells
			continue
		}
		if len(header) != len(cells) {
			out = append(out, strings.Join(cells, "; "))
			continue
		}
		parts := make([]string, 0, len(cells))
		for j, c := range cells {
			if c != "" {
				parts = append(parts, header[j]+": "+c)
			}
		}
		out = append(out, strings.Join(parts, "; "))
	}
	flush()
	return out
}

func tableCells(line string) []string {
	inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
	cells := strings.Split(inner, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isSeparator(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "|") && strings.Contains(line, "-") && strings.Trim(line, "|-: ") == ""
}
