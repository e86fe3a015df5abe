package eval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/citahq/cita/rag"
)

// TranslationTerm is one line of a translation test set (testdata/translation/terms.jsonl): a
// workplace term inside a chat-style question, and the renderings in the other language that
// mean what the person means there.
type TranslationTerm struct {
	ID       string   `json:"id"`
	From     string   `json:"from"` // "es" or "en"
	Question string   `json:"question"`
	Term     string   `json:"term"`
	Senses   []string `json:"senses"`
	Domain   string   `json:"domain"`
}

// LoadTranslationTerms reads a translation test set. It returns an error naming the bad line.
func LoadTranslationTerms(path string) ([]TranslationTerm, error) {
	var out []TranslationTerm
	if err := readJSONL(path, func(t TranslationTerm) { out = append(out, t) }); err != nil {
		return nil, err
	}
	for _, t := range out {
		if (t.From != "es" && t.From != "en") || t.Question == "" || len(t.Senses) == 0 {
			return nil, fmt.Errorf("%s: %s needs from (es or en), a question and senses", path, t.ID)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no terms", path)
	}
	return out, nil
}

// Searched is what a question is searched as in the other language: the translation's text and
// the bridges (dictionary senses, glossary entries) searched beside it.
type Searched struct {
	Translation string
	Bridges     []rag.Bridge
}

// Searcher returns what question, in from, is searched as in to.
type SearchedAs func(ctx context.Context, question, from, to string) (Searched, error)

// TranslationOutcome is one term's result.
type TranslationOutcome struct {
	ID, From, Term, Domain string
	Right                  bool
	Sense                  string // the sense found, "" when none
	Translation            string
}

// TranslationReport is the share of terms whose meant sense is among the searched terms,
// overall, per direction ("es>en", "en>es") and per domain.
type TranslationReport struct {
	Terms    int                  `json:"terms"`
	Right    float64              `json:"right_sense"`
	ByDir    map[string]float64   `json:"by_direction"`
	DirTerms map[string]int       `json:"terms_by_direction"`
	ByDomain map[string]float64   `json:"by_domain"`
	Outcomes []TranslationOutcome `json:"outcomes,omitempty"`
}

// RunTranslation asks searchedAs for every term's question and checks that one of the term's
// senses is searched. It stops at the first error.
func RunTranslation(ctx context.Context, terms []TranslationTerm, searchedAs SearchedAs) (*TranslationReport, error) {
	rep := &TranslationReport{ByDir: map[string]float64{}, DirTerms: map[string]int{}, ByDomain: map[string]float64{}}
	right, dirRight, domRight, domN := 0, map[string]int{}, map[string]int{}, map[string]int{}
	for _, t := range terms {
		to := rag.OtherLang(t.From)
		s, err := searchedAs(ctx, t.Question, t.From, to)
		if err != nil {
			return nil, fmt.Errorf("term %s: %w", t.ID, err)
		}
		o := TranslationOutcome{ID: t.ID, From: t.From, Term: t.Term, Domain: t.Domain, Translation: s.Translation}
		for _, sense := range t.Senses {
			if rag.Renders(sense, to, s.Translation, s.Bridges) {
				o.Right, o.Sense = true, sense
				break
			}
		}
		dir := t.From + ">" + to
		rep.DirTerms[dir]++
		domN[t.Domain]++
		if o.Right {
			right++
			dirRight[dir]++
			domRight[t.Domain]++
		}
		rep.Outcomes = append(rep.Outcomes, o)
	}
	rep.Terms = len(terms)
	rep.Right = float64(right) / float64(len(terms))
	for d, n := range rep.DirTerms {
		rep.ByDir[d] = float64(dirRight[d]) / float64(n)
	}
	for d, n := range domN {
		rep.ByDomain[d] = float64(domRight[d]) / float64(n)
	}
	return rep, nil
}

// Domains returns the report's domains, sorted.
func (r *TranslationReport) Domains() []string {
	out := make([]string, 0, len(r.ByDomain))
	for d := range r.ByDomain {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Misses are the outcomes without the meant sense.
func (r *TranslationReport) Misses() []TranslationOutcome {
	var out []TranslationOutcome
	for _, o := range r.Outcomes {
		if !o.Right {
			out = append(out, o)
		}
	}
	return out
}

// String is a one-line summary.
func (r *TranslationReport) String() string {
	var dirs []string
	for d, v := range r.ByDir {
		dirs = append(dirs, fmt.Sprintf("%s %.2f (%d)", d, v, r.DirTerms[d]))
	}
	sort.Strings(dirs)
	return fmt.Sprintf("%.2f of %d terms; %s", r.Right, r.Terms, strings.Join(dirs, ", "))
}
