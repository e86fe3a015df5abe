// Package glossary reads glossaries: lists of terms that name the same thing, in Spanish and
// English, the way search engines take synonym maps. cita ships one of workplace vocabulary
// (Builtin); an organisation adds its own in configuration or in files. A glossary only says
// which terms are equivalent; matching them in questions is the answerer's (package rag).
//
// The format is line-based, UTF-8:
//
//	# a comment; blank lines are skipped
//	[leave]                                  a domain for the lines that follow (optional)
//	en: sick leave, sick day | es: baja por enfermedad, baja médica
//	                                         one concept: terms per language, all equivalent
//	PTO, paid time off, vacation             equivalent terms of no stated language
//	es: parqueadero => es: aparcamiento | en: parking
//	                                         one way: the left terms, found in a question, add
//	                                         the right ones (not the reverse)
//
// A language tag is "en:" or "es:" at the start of a group; groups are separated by "|", terms
// by ",". Terms are matched by their words' stems, so plurals and inflections need no entry.
package glossary

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Languages a term may be tagged with; an untagged term is matched in either.
const (
	Spanish = "es"
	English = "en"
	AnyLang = ""
)

// Limits on one line, so a mistaken file (a CSV, a binary) fails with a clear error instead of
// flooding questions with bridges.
const (
	maxTermWords   = 8
	maxTermsInLine = 40
	maxLineBytes   = 4096
)

// Term is one way of naming a concept.
type Term struct {
	Text string
	Lang string // Spanish, English or AnyLang
}

// Entry is one line: equivalent terms, or a one-way mapping from Terms to To.
type Entry struct {
	Terms  []Term
	To     []Term // nil for an equivalence
	Domain string
	// Origin says where the entry was written ("workplace glossary:12", "glossary.txt:3",
	// "answers.glossary[2]"), for --explain.
	Origin string
}

// Bridges returns what finding term t of e in a question adds: every other term of an
// equivalence, or the right side of a mapping when t is on its left.
func (e Entry) Bridges(t Term) []Term {
	if e.To != nil {
		return e.To
	}
	out := make([]Term, 0, len(e.Terms)-1)
	for _, o := range e.Terms {
		if o != t {
			out = append(out, o)
		}
	}
	return out
}

// Glossary is a list of entries, read-only once built.
type Glossary struct {
	Entries []Entry
	// Name says whose glossary it is ("workplace glossary", "organisation glossary").
	Name string
}

// Len is the number of entries.
func (g *Glossary) Len() int {
	if g == nil {
		return 0
	}
	return len(g.Entries)
}

//go:embed workplace.txt
var workplace []byte

// Builtin returns cita's own glossary of workplace vocabulary (workplace.txt, written for cita:
// HR, pay, leave, travel, expenses, IT, security, legal, sales and operations, everyday words
// beside the formal ones, in Spanish and English). It panics if the file does not parse, which
// a test guards.
func Builtin() *Glossary {
	g, err := Parse(bytes.NewReader(workplace), "workplace glossary")
	if err != nil {
		panic(err)
	}
	g.Name = "workplace glossary"
	return g
}

// Parse reads a glossary. origin names it in errors and in each entry's Origin ("name:line").
// It returns an error naming the line of the first bad entry.
func Parse(r io.Reader, origin string) (*Glossary, error) {
	g := &Glossary{Name: origin}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineBytes+1)
	domain := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		e, dom, err := ParseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", origin, n, err)
		}
		switch {
		case dom != "":
			domain = dom
		case e != nil:
			e.Domain, e.Origin = domain, fmt.Sprintf("%s:%d", origin, n)
			g.Entries = append(g.Entries, *e)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s: a line is longer than %d bytes: not a glossary", origin, maxLineBytes)
		}
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	return g, nil
}

// ParseLine reads one line: an entry, a domain header ("[leave]") or nothing (blank, comment).
func ParseLine(line string) (e *Entry, domain string, err error) {
	if !utf8.ValidString(line) {
		return nil, "", fmt.Errorf("not valid UTF-8")
	}
	if len(line) > maxLineBytes {
		return nil, "", fmt.Errorf("longer than %d bytes", maxLineBytes)
	}
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil, "", nil
	}
	if strings.HasPrefix(line, "[") {
		d, ok := strings.CutSuffix(line[1:], "]")
		d = strings.TrimSpace(d)
		if !ok || d == "" || strings.ContainsAny(d, "[],|") {
			return nil, "", fmt.Errorf("a domain header is [name]: %q", line)
		}
		return nil, d, nil
	}
	left, right, mapping := strings.Cut(line, "=>")
	from, err := parseSide(left)
	if err != nil {
		return nil, "", err
	}
	if !mapping {
		if len(from) < 2 {
			return nil, "", fmt.Errorf("an entry needs two terms or more (or a mapping with =>): %q", line)
		}
		return &Entry{Terms: from}, "", nil
	}
	if strings.Contains(right, "=>") {
		return nil, "", fmt.Errorf("more than one => in %q", line)
	}
	to, err := parseSide(right)
	if err != nil {
		return nil, "", err
	}
	if len(from) == 0 || len(to) == 0 {
		return nil, "", fmt.Errorf("a mapping needs terms on both sides of =>: %q", line)
	}
	return &Entry{Terms: from, To: to}, "", nil
}

// parseSide reads "en: a, b | es: c" into terms.
func parseSide(s string) ([]Term, error) {
	var out []Term
	seen := map[Term]bool{}
	for _, group := range strings.Split(s, "|") {
		group = strings.TrimSpace(group)
		if group == "" {
			continue
		}
		l := AnyLang
		if tag, rest, ok := strings.Cut(group, ":"); ok && isLangTag(tag) {
			l, group = strings.ToLower(strings.TrimSpace(tag)), rest
		} else if ok && len(strings.TrimSpace(tag)) == 2 && !strings.Contains(tag, " ") {
			return nil, fmt.Errorf("unknown language %q (use en: or es:)", strings.TrimSpace(tag))
		}
		for _, text := range strings.Split(group, ",") {
			text = strings.Join(strings.Fields(text), " ")
			if text == "" {
				continue
			}
			if !hasLetterOrDigit(text) {
				return nil, fmt.Errorf("term %q has no letter or digit", text)
			}
			if n := len(strings.Fields(text)); n > maxTermWords {
				return nil, fmt.Errorf("term %q has %d words (at most %d)", text, n, maxTermWords)
			}
			t := Term{Text: text, Lang: l}
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	if len(out) > maxTermsInLine {
		return nil, fmt.Errorf("%d terms in one entry (at most %d)", len(out), maxTermsInLine)
	}
	return out, nil
}

func isLangTag(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == Spanish || s == English
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// Merge returns one glossary holding every entry of gs, in order (nil ones skipped).
func Merge(name string, gs ...*Glossary) *Glossary {
	out := &Glossary{Name: name}
	for _, g := range gs {
		if g != nil {
			out.Entries = append(out.Entries, g.Entries...)
		}
	}
	return out
}

// Fingerprint is a short hash of the glossaries' entries (nil ones skipped): answers cached
// under other glossaries are not served.
func Fingerprint(gs ...*Glossary) string {
	h := sha256.New()
	for _, g := range gs {
		if g == nil {
			continue
		}
		for _, e := range g.Entries {
			for _, side := range [][]Term{e.Terms, e.To} {
				for _, t := range side {
					fmt.Fprintf(h, "%d:%s%d:%s;", len(t.Lang), t.Lang, len(t.Text), t.Text)
				}
				h.Write([]byte{'|'})
			}
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
