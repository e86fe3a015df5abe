package rag

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Extractive composes answers offline. It finds what the question asks for (a number, a date, a
// person, a tool, steps, a rule: see DetectExpect) and quotes the unit of the sources that holds
// it (a sentence, a list item, a lead sentence with its list, a table row with its headers)
// first, as the direct answer; closely related units follow. It never invents text: every line
// is a quote followed by its [n]; the frame sentences are in the question's language.
type Extractive struct {
	MaxSentences int // lines quoted at most (a lead with its list counts once); default 3
	PerSourceMax int // lines from one source at most; default 2
}

// ExtractiveVersion names the extractive composer's behaviour for the answer cache: bump it when a
// change makes the same sources give another answer, so cached answers of the old composer are
// not served.
const ExtractiveVersion = "2026-12-07.2"

// relatedShare is how close to the direct answer's score another unit must be to be quoted too.
const relatedShare = 0.55

// Compose implements Composer. It returns an empty text when no unit matches the question.
func (e Extractive) Compose(_ context.Context, req ComposeRequest, onDelta func(string)) (*Composition, error) {
	maxLines, perSource := e.MaxSentences, e.PerSourceMax
	if maxLines <= 0 {
		maxLines = 3
	}
	if perSource <= 0 {
		perSource = 2
	}
	r := req.read()
	expect := r.expect
	units := r.units
	if req.keyFirst {
		units = keyFirst(units)
	}
	picked := newestFirst(req.Sources, pickUnits(units, expect, maxLines, perSource))
	if len(picked) == 0 {
		return &Composition{}, nil
	}
	text := renderExtractive(req, picked)
	if onDelta != nil {
		onDelta(text)
	}
	comp := &Composition{Text: text, Usage: Usage{Model: "extractive"}, Expect: expect}
	for _, p := range picked {
		comp.Quotes = append(comp.Quotes, QuoteChoice{
			ChunkID: req.Sources[p.source].ChunkID, N: req.Sources[p.source].N, Kind: p.kind.String(), Score: p.score, Matched: p.matched,
			AnswerKind: kindNote(expect, p), Text: p.text,
		})
	}
	return comp, nil
}

// pickUnits takes the best unit as the direct answer, then units scoring at least relatedShare
// of it, skipping repeats and the items of a lead already quoted.
func pickUnits(units []scoredUnit, expect Expect, maxLines, perSource int) []scoredUnit {
	if len(units) == 0 || units[0].score <= 0 {
		return nil
	}
	best := units[0]
	var picked []scoredUnit
	count := map[int]int{}
	quoted := map[string]bool{}
	for _, u := range units {
		if len(picked) == maxLines || u.score < relatedShare*best.score {
			break
		}
		if u.score <= 0 || quoted[u.text] || count[u.source] == perSource {
			continue
		}
		// A procedure's step is quoted with the lead sentence and the rest of its list.
		if expect.Kind == ExpectProcedure && u.kind == unitItem && u.lead > 0 {
			if lead, ok := leadOf(units, u); ok && !quoted[lead.text] {
				lead.score = u.score
				u = lead
			}
		}
		if quoted[u.text] {
			continue
		}
		if u.kind == unitSentence && u.prev != "" && !quoted[u.prev] && refersBack(u.text) {
			// "Using these tools ensures a clean wipe." says nothing without the sentence that
			// names the tools.
			quoted[u.prev] = true
			u.text = u.prev + " " + u.text
		}
		quoted[u.text] = true
		for _, it := range u.items {
			quoted[it.text] = true
		}
		count[u.source]++
		picked = append(picked, u)
	}
	return picked
}

// newestFirst puts a quote from the newer of two versions of a document before the older's, so
// that when sources disagree the direct answer is the current one.
func newestFirst(sources []Source, picked []scoredUnit) []scoredUnit {
	for i := 0; i < len(picked); i++ {
		for j := i + 1; j < len(picked); j++ {
			a, b := sources[picked[i].source], sources[picked[j].source]
			if a.DocumentID != b.DocumentID && sameDocumentFamily(a.Title, b.Title) && b.UpdatedAt.After(a.UpdatedAt) && sameStanding(a, b) {
				newer := picked[j]
				copy(picked[i+1:j+1], picked[i:j])
				picked[i] = newer
			}
		}
	}
	return picked
}

// backReference matches a sentence that opens by pointing at what the sentence before named
// ("These tools…", "Using this form…", "It is…", "Estos equipos…", "Dicho formulario…").
var backReference = regexp.MustCompile(`(?i)^(?:\S+\s+)?(?:these|those|this|that|it|they|such|estos|estas|este|esta|esto|ese|esa|esos|esas|dicho|dicha|dichos|dichas|ello)\b`)

// refersBack reports whether a sentence needs the one before it to be understood.
func refersBack(text string) bool {
	return backReference.MatchString(text)
}

// leadOf finds the lead unit (with its items) that item u belongs to.
func leadOf(units []scoredUnit, u scoredUnit) (scoredUnit, bool) {
	for _, c := range units {
		if c.source == u.source && c.kind == unitLead && c.order+1 == u.lead && len(c.items) <= maxLeadItems {
			return c, true
		}
	}
	return scoredUnit{}, false
}

// renderExtractive writes the direct answer first, then the related quotes under a frame
// sentence, then notes: sources that disagree, and sources in another language than the question.
func renderExtractive(req ComposeRequest, picked []scoredUnit) string {
	ph := phrasesFor(req.Lang)
	var b strings.Builder
	writeUnit := func(u scoredUnit, bullet bool) {
		n := req.Sources[u.source].N
		if u.implicit {
			u.text = sectionLabel(req.Sources[u.source]) + ":"
		}
		prefix := ""
		if bullet {
			prefix = "- "
		}
		if len(u.items) > 0 {
			fmt.Fprintf(&b, "%s%s [%d]", prefix, u.text, n)
			base := ""
			if bullet {
				base = "  "
			}
			for _, it := range u.items {
				b.WriteString("\n" + base + strings.Repeat("  ", it.depth) + "- " + it.text)
			}
			return
		}
		fmt.Fprintf(&b, "%s%s [%d]", prefix, u.text, n)
	}
	writeUnit(picked[0], false)
	if len(picked) > 1 {
		b.WriteString("\n\n" + ph.Related)
		for _, u := range picked[1:] {
			b.WriteString("\n")
			writeUnit(u, true)
		}
	}
	if older, newer, ok := versionConflict(req.Sources, picked); ok {
		b.WriteString("\n\n" + fmt.Sprintf(ph.NewerSource, older.N, newer.N, newer.N))
	}
	for _, src := range noLongerCurrent(req, picked) {
		b.WriteString("\n\n" + fmt.Sprintf(ph.NotCurrent, src.N, HistoryNote(src.Validity, time.Now(), req.Lang)))
	}
	if other := quotedLanguage(req, picked); other != "" {
		b.WriteString("\n\n" + fmt.Sprintf(ph.QuotedIn, ph.LangName[other]))
	}
	return b.String()
}

// noLongerCurrent returns the quoted sources that are no longer current (cited for a period the
// question names), once each: the answer says so, so none is taken as current.
func noLongerCurrent(req ComposeRequest, picked []scoredUnit) []Source {
	var out []Source
	seen := map[int]bool{}
	for _, p := range picked {
		src := req.Sources[p.source]
		if !seen[src.N] && src.NoLongerCurrent(time.Now()) {
			seen[src.N] = true
			out = append(out, src)
		}
	}
	return out
}

// sectionLabel names the section a bare list sits in: its section path, else the title.
func sectionLabel(s Source) string {
	if s.Section != "" {
		return s.Section
	}
	return s.Title
}

// quotedLanguage returns the language the quotes are in when it differs from the question's.
func quotedLanguage(req ComposeRequest, picked []scoredUnit) string {
	for _, p := range picked {
		l := req.Sources[p.source].Lang
		if (l == "es" || l == "en") && l != req.Lang {
			return l
		}
	}
	return ""
}

// kindNote says, for --explain, whether a quote holds the kind of answer asked for.
func kindNote(e Expect, u scoredUnit) string {
	if e.Kind == ExpectFact {
		return "any"
	}
	what := string(e.Kind)
	if e.Unit != "" {
		what += " (" + e.Unit + ")"
	}
	switch {
	case u.kindOK && u.unitOK:
		return what + ": holds it, with the unit"
	case u.kindOK:
		return what + ": holds it"
	}
	return what + ": missing"
}

// versionConflict finds two quoted sources that are versions of one document (titles equal but
// for years and numbers) with different update dates: the offline composer cannot judge whether
// they disagree, so it says which one is newer.
func versionConflict(sources []Source, picked []scoredUnit) (older, newer Source, ok bool) {
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
			if sameDocumentFamily(a.Title, b.Title) && a.UpdatedAt.Before(b.UpdatedAt) && sameStanding(a, b) {
				return a, b, true
			}
		}
	}
	return Source{}, Source{}, false
}

// sameStanding reports whether two sources are both current or both no longer current. A
// current and a superseded version are not "newer and older": the question named the past
// period the superseded one is quoted for, and its own note says it is no longer current.
func sameStanding(a, b Source) bool {
	now := time.Now()
	return a.NoLongerCurrent(now) == b.NoLongerCurrent(now)
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

// keyFirst moves to the front the best unit that says the question's key word where it stands,
// when the best overall does not and it scores at least relatedShare of it: a reply hedged
// because the direct answer lacks what the question is about leads with the passage that
// mentions it ("parqueadero"), not with one that shares the question's generic words.
func keyFirst(units []scoredUnit) []scoredUnit {
	if len(units) < 2 || units[0].keyLocal {
		return units
	}
	for i, u := range units[1:] {
		if u.keyLocal && u.score >= relatedShare*units[0].score {
			out := make([]scoredUnit, 0, len(units))
			out = append(out, u)
			out = append(out, units[:i+1]...)
			return append(out, units[i+2:]...)
		}
	}
	return units
}
