package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/lang"
)

// AnswerQuestion is one line of a handbook set's questions.jsonl: an employee-style question,
// whether the corpus answers it, the corpus files that state the fact, and the fact itself.
type AnswerQuestion struct {
	ID         string   `json:"id"`
	Question   string   `json:"question"`
	Lang       string   `json:"lang"`
	Answerable bool     `json:"answerable"`
	GoldFiles  []string `json:"gold_files"`
	GoldAnswer string   `json:"gold_answer"`
	AltAnswers []string `json:"alt_answers"`
	Kind       string   `json:"kind"`
}

// AnswerSet is a handbook evaluation set: DIR/corpus/ (the documents) and DIR/questions.jsonl.
type AnswerSet struct {
	Name      string
	CorpusDir string
	Questions []AnswerQuestion
	// PageLang is the language of each gold file ("es", "en", or "" when it cannot be told),
	// read from the file: figures are split by the direction a question crosses.
	PageLang map[string]string
}

// LoadAnswerSet reads DIR/questions.jsonl. It returns an error naming the line of bad input, and
// an error when a question is marked answerable without a gold answer.
func LoadAnswerSet(dir string) (*AnswerSet, error) {
	set := &AnswerSet{Name: filepath.Base(filepath.Clean(dir)), CorpusDir: filepath.Join(dir, "corpus")}
	path := filepath.Join(dir, "questions.jsonl")
	if err := readJSONL(path, func(q AnswerQuestion) { set.Questions = append(set.Questions, q) }); err != nil {
		return nil, err
	}
	for _, q := range set.Questions {
		if q.ID == "" || strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("%s: a question without id or text", path)
		}
		if q.Answerable && q.GoldAnswer == "" {
			return nil, fmt.Errorf("%s: %s is answerable but has no gold_answer", path, q.ID)
		}
	}
	if len(set.Questions) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	set.PageLang = goldPageLangs(set)
	return set, nil
}

// Answerer answers one question; *rag.Pipeline satisfies it.
type Answerer interface {
	Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)
}

// AnswerOutcome is how one question was answered.
type AnswerOutcome struct {
	ID         string   `json:"id"`
	Lang       string   `json:"lang"`
	Kind       string   `json:"kind"`
	Answerable bool     `json:"answerable"`
	Question   string   `json:"question"`
	Gold       string   `json:"gold_answer,omitempty"`
	GoldFiles  []string `json:"gold_files,omitempty"`
	Answer     string   `json:"answer"`
	Cited      []string `json:"cited,omitempty"` // cited documents' paths, in source order
	Abstained  bool     `json:"abstained"`
	// Hedged: the reply gave the closest passages as possibly not answering (rag.Answer.Hedged).
	Hedged      bool   `json:"hedged"`
	HedgeReason string `json:"hedge_reason,omitempty"`
	// Direction is "<question language>><gold page language>" ("es>en") for an answerable
	// question, "out:<question language>" for an unanswerable one.
	Direction string `json:"direction"`
	FirstGold bool   `json:"first_source_gold"`
	AnyGold   bool   `json:"any_cited_gold"`
	HasFact   bool   `json:"has_fact"`
	// DirectFact: the fact is in the direct answer (the first paragraph), not only in a related
	// quote further down.
	DirectFact bool              `json:"direct_fact"`
	Took       time.Duration     `json:"took_ns"`
	AbstainWhy string            `json:"abstain_reason,omitempty"`
	Evidence   float64           `json:"evidence"`
	Stated     rag.Answerability `json:"answerability"`
	Missing    []string          `json:"missing,omitempty"`
	MissShare  float64           `json:"missing_share"`
	Unknown    []string          `json:"unknown_names,omitempty"`
	UnknownW   []string          `json:"unknown_words,omitempty"`
	Standalone string            `json:"standalone_query,omitempty"`
	// Translated is the question as searched in the other language; TranslationMissing says why
	// there is none when the scope is bilingual (a failing translator shows here).
	Translated         string `json:"translated,omitempty"`
	TranslationMissing string `json:"translation_missing,omitempty"`
}

// Confident reports whether the reply was given as an answer: neither declined nor hedged.
func (o AnswerOutcome) Confident() bool { return !o.Abstained && !o.Hedged }

// Miss reports whether the outcome falls short: an answerable question without the fact in a
// confident answer or with a first source outside the gold files, or an unanswerable question
// answered confidently.
func (o AnswerOutcome) Miss() bool {
	if !o.Answerable {
		return o.Confident()
	}
	return !o.HasFact || !o.FirstGold || !o.Confident()
}

// AnswerMetrics are the answer-level figures of a group of questions. Rates over answerable
// questions use Answerable as the denominator; Declined uses Unanswerable.
type AnswerMetrics struct {
	Questions     int     `json:"questions"`
	Answerable    int     `json:"answerable"`
	Unanswerable  int     `json:"unanswerable"`
	FirstGold     float64 `json:"first_source_gold"`
	AnyGold       float64 `json:"any_cited_gold"`
	HasFact       float64 `json:"has_fact"`
	DirectFact    float64 `json:"direct_fact"`
	FalseRefusals float64 `json:"false_refusals"`
	// ConfidentFact: the fact in a reply given as an answer (not hedged); Hedged: answerable
	// questions given a hedged reply; FirstGoldFact: of the answered questions whose first source
	// is a gold file, the share whose answer holds the fact (the right page's right sentence).
	ConfidentFact float64 `json:"confident_fact"`
	Hedged        float64 `json:"hedged"`
	FirstGoldFact float64 `json:"first_gold_fact"`
	Declined      float64 `json:"declined_unanswerable"`
	// HedgedOut and ConfidentOut: unanswerable questions given a hedged reply, and answered as if
	// the documents answered them.
	HedgedOut    float64 `json:"hedged_unanswerable"`
	ConfidentOut float64 `json:"confident_unanswerable"`
	P50ms        float64 `json:"p50_ms"`
	P95ms        float64 `json:"p95_ms"`
}

// AnswerReport is the result of RunAnswers: figures overall and per language, and every outcome.
type AnswerReport struct {
	Set     string                   `json:"set"`
	Overall AnswerMetrics            `json:"overall"`
	ByLang  map[string]AnswerMetrics `json:"by_lang"`
	// ByDirection splits the questions by the languages they cross: "en>en", "es>en", ... for
	// answerable ones, "out:en" and "out:es" for unanswerable ones.
	ByDirection map[string]AnswerMetrics `json:"by_direction"`
	Outcomes    []AnswerOutcome          `json:"outcomes,omitempty"`
}

// RunAnswers asks every question of set through a (with no history, under scope) and scores the
// answers. It stops at the first answering error.
func RunAnswers(ctx context.Context, set *AnswerSet, a Answerer, scope rag.Scope) (*AnswerReport, error) {
	rep := &AnswerReport{Set: set.Name}
	for _, q := range set.Questions {
		start := time.Now()
		ans, err := a.Answer(ctx, rag.Question{Text: q.Question, Scope: scope}, nil)
		if err != nil {
			return nil, fmt.Errorf("answer %s: %w", q.ID, err)
		}
		o := scoreAnswer(q, ans, time.Since(start))
		o.Direction = direction(q, set.PageLang)
		rep.Outcomes = append(rep.Outcomes, o)
	}
	rep.Overall = summarize(rep.Outcomes)
	rep.ByLang = summarizeBy(rep.Outcomes, func(o AnswerOutcome) string { return o.Lang })
	rep.ByDirection = summarizeBy(rep.Outcomes, func(o AnswerOutcome) string { return o.Direction })
	return rep, nil
}

// summarizeBy summarizes the outcomes in groups named by key.
func summarizeBy(outcomes []AnswerOutcome, key func(AnswerOutcome) string) map[string]AnswerMetrics {
	groups := map[string][]AnswerOutcome{}
	for _, o := range outcomes {
		groups[key(o)] = append(groups[key(o)], o)
	}
	out := make(map[string]AnswerMetrics, len(groups))
	for k, os := range groups {
		out[k] = summarize(os)
	}
	return out
}

// Directions returns the report's directions, answerable ones first, each group sorted.
func (r *AnswerReport) Directions() []string {
	out := make([]string, 0, len(r.ByDirection))
	for d := range r.ByDirection {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		oi, oj := strings.HasPrefix(out[i], "out:"), strings.HasPrefix(out[j], "out:")
		if oi != oj {
			return oj
		}
		return out[i] < out[j]
	})
	return out
}

// Langs returns the report's languages, sorted.
func (r *AnswerReport) Langs() []string {
	out := make([]string, 0, len(r.ByLang))
	for l := range r.ByLang {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

func scoreAnswer(q AnswerQuestion, ans *rag.Answer, took time.Duration) AnswerOutcome {
	o := AnswerOutcome{
		ID: q.ID, Lang: q.Lang, Kind: q.Kind, Answerable: q.Answerable, Question: q.Question, Gold: q.GoldAnswer,
		GoldFiles: q.GoldFiles, Answer: ans.Text, Abstained: ans.Abstained, Hedged: ans.Hedged, HedgeReason: ans.HedgeReason, Took: took, Standalone: ans.StandaloneQuery,
		Evidence: ans.Evidence, Stated: ans.Answerability, Missing: ans.Missing, MissShare: ans.MissingShare, Unknown: ans.UnknownNames, UnknownW: ans.UnknownWords,
	}
	if ans.Abstained {
		o.AbstainWhy = ans.AbstainReason
	}
	if ans.Search != nil {
		o.Translated, o.TranslationMissing = ans.Search.Trace.Translated, ans.Search.Trace.TranslationMissing
	}
	for _, s := range ans.Sources {
		path := filepath.ToSlash(s.Path)
		if !slices.Contains(o.Cited, path) {
			o.Cited = append(o.Cited, path)
		}
	}
	if !q.Answerable || ans.Abstained {
		return o
	}
	isGold := func(p string) bool { return slices.Contains(q.GoldFiles, p) }
	o.FirstGold = len(o.Cited) > 0 && isGold(o.Cited[0])
	o.AnyGold = slices.ContainsFunc(o.Cited, isGold)
	facts := append([]string{q.GoldAnswer}, q.AltAnswers...)
	o.HasFact = ContainsFact(ans.Text, facts)
	o.DirectFact = ContainsFact(DirectAnswer(ans.Text), facts)
	return o
}

func summarize(outcomes []AnswerOutcome) AnswerMetrics {
	var m AnswerMetrics
	lat := make([]time.Duration, 0, len(outcomes))
	var first, any, fact, direct, refused, declined, confident, hedged, firstAnswered, firstFact, hedgedOut, confidentOut int
	for _, o := range outcomes {
		m.Questions++
		lat = append(lat, o.Took)
		if !o.Answerable {
			m.Unanswerable++
			switch {
			case o.Abstained:
				declined++
			case o.Hedged:
				hedgedOut++
			default:
				confidentOut++
			}
			continue
		}
		m.Answerable++
		if o.Abstained {
			refused++
		}
		if o.Hedged {
			hedged++
		}
		if o.HasFact && o.Confident() {
			confident++
		}
		if o.FirstGold && !o.Abstained {
			firstAnswered++
			if o.HasFact {
				firstFact++
			}
		}
		if o.FirstGold {
			first++
		}
		if o.AnyGold {
			any++
		}
		if o.HasFact {
			fact++
		}
		if o.DirectFact {
			direct++
		}
	}
	if m.Answerable > 0 {
		n := float64(m.Answerable)
		m.FirstGold, m.AnyGold, m.HasFact, m.FalseRefusals = float64(first)/n, float64(any)/n, float64(fact)/n, float64(refused)/n
		m.DirectFact = float64(direct) / n
		m.ConfidentFact, m.Hedged = float64(confident)/n, float64(hedged)/n
	}
	if firstAnswered > 0 {
		m.FirstGoldFact = float64(firstFact) / float64(firstAnswered)
	}
	if m.Unanswerable > 0 {
		u := float64(m.Unanswerable)
		m.Declined, m.HedgedOut, m.ConfidentOut = float64(declined)/u, float64(hedgedOut)/u, float64(confidentOut)/u
	}
	m.P50ms, m.P95ms = percentile(lat, 0.5), percentile(lat, 0.95)
	return m
}

// ContainsFact reports whether answer states one of the facts as whole words, comparing case-
// and accent-folded text with Markdown emphasis and repeated spaces removed ("**90 days**" holds
// "90 days"; "Días" holds "dias"; "15 days" does not hold "5 days", nor "2,500" hold "500").
func ContainsFact(answer string, facts []string) bool {
	a := foldFact(answer)
	for _, f := range facts {
		if f = foldFact(f); f != "" && containsBounded(a, f) {
			return true
		}
	}
	return false
}

// containsBounded reports whether text holds fact where neither end of the match continues a
// word or a number: the rune before and after a match that starts or ends with a letter or a
// digit must not be one ("5" is not in "15" or "5.5"; "$250" is in "($250)").
func containsBounded(text, fact string) bool {
	first, _ := utf8.DecodeRuneInString(fact)
	last, _ := utf8.DecodeLastRuneInString(fact)
	for from := 0; from <= len(text)-len(fact); {
		i := strings.Index(text[from:], fact)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(fact)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !continuesWord(first, before, text[:start])) && (end == len(text) || !continuesWord(last, after, text[end:])) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

// continuesWord reports whether neighbour, next to the fact's edge rune, makes the match part of
// a longer word or number. A decimal point or thousands separator between digits continues a
// number ("5" in "2.5" or "1,5"); after a sentence's last digit, "." does not ("5." holds "5").
func continuesWord(edge, neighbour rune, side string) bool {
	if !isWordRune(edge) {
		return false
	}
	if isWordRune(neighbour) {
		return true
	}
	if unicode.IsDigit(edge) && (neighbour == '.' || neighbour == ',') {
		// "2.5" or "1,000": the separator continues the number when a digit is on its far side.
		rest := strings.TrimPrefix(strings.TrimSuffix(side, string(neighbour)), string(neighbour))
		if strings.HasSuffix(side, string(neighbour)) { // neighbour is before the match
			r, _ := utf8.DecodeLastRuneInString(rest)
			return unicode.IsDigit(r)
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsDigit(r)
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// DirectAnswer is an answer's first paragraph: the line that answers, before related quotes and
// notes.
func DirectAnswer(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	return first
}

func foldFact(s string) string {
	return strings.Join(strings.Fields(markup.Replace(lang.Fold(s))), " ")
}

// markup is the Markdown emphasis a fact is matched without.
var markup = strings.NewReplacer("*", "", "`", "", "_", "")

// direction is where a question goes: "<question language>><gold page language>" for an
// answerable one ("?" for a page whose language cannot be told), "out:<question language>" for
// an unanswerable one.
func direction(q AnswerQuestion, pageLang map[string]string) string {
	if !q.Answerable {
		return "out:" + q.Lang
	}
	page := "?"
	for _, f := range q.GoldFiles {
		if l := pageLang[f]; l != "" {
			page = l
			break
		}
	}
	return q.Lang + ">" + page
}

// goldPageLangs reads every gold file of set and tells its language from its text ("" when
// the file cannot be read or its language told).
func goldPageLangs(set *AnswerSet) map[string]string {
	out := map[string]string{}
	for _, q := range set.Questions {
		for _, f := range q.GoldFiles {
			if _, done := out[f]; done {
				continue
			}
			out[f] = ""
			data, err := os.ReadFile(filepath.Join(set.CorpusDir, filepath.FromSlash(f)))
			if err != nil {
				continue
			}
			if l := lang.Detect(withoutFrontMatter(string(data))); l == lang.Spanish || l == lang.English {
				out[f] = l
			}
		}
	}
	return out
}

// withoutFrontMatter drops a Markdown file's YAML front matter ("---" lines around it).
func withoutFrontMatter(s string) string {
	if rest, ok := strings.CutPrefix(s, "---\n"); ok {
		if _, body, found := strings.Cut(rest, "\n---"); found {
			return body
		}
	}
	return s
}
