package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/citahq/cita/rag"
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
	return set, nil
}

// Answerer answers one question; *rag.Pipeline satisfies it.
type Answerer interface {
	Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)
}

// AnswerOutcome is how one question was answered.
type AnswerOutcome struct {
	ID         string        `json:"id"`
	Lang       string        `json:"lang"`
	Kind       string        `json:"kind"`
	Answerable bool          `json:"answerable"`
	Question   string        `json:"question"`
	Gold       string        `json:"gold_answer,omitempty"`
	GoldFiles  []string      `json:"gold_files,omitempty"`
	Answer     string        `json:"answer"`
	Cited      []string      `json:"cited,omitempty"` // cited documents' paths, in source order
	Abstained  bool          `json:"abstained"`
	FirstGold  bool          `json:"first_source_gold"`
	AnyGold    bool          `json:"any_cited_gold"`
	HasFact    bool          `json:"has_fact"`
	Took       time.Duration `json:"took_ns"`
	AbstainWhy string        `json:"abstain_reason,omitempty"`
	Evidence   float64       `json:"evidence"`
	Missing    []string      `json:"missing,omitempty"`
	MissShare  float64       `json:"missing_share"`
	Standalone string        `json:"standalone_query,omitempty"`
}

// Miss reports whether the outcome falls short: an answerable question without the fact or
// with a first source outside the gold files, or an unanswerable question answered.
func (o AnswerOutcome) Miss() bool {
	if !o.Answerable {
		return !o.Abstained
	}
	return !o.HasFact || !o.FirstGold
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
	FalseRefusals float64 `json:"false_refusals"`
	Declined      float64 `json:"declined_unanswerable"`
	P50ms         float64 `json:"p50_ms"`
	P95ms         float64 `json:"p95_ms"`
}

// AnswerReport is the result of RunAnswers: figures overall and per language, and every outcome.
type AnswerReport struct {
	Set      string                   `json:"set"`
	Overall  AnswerMetrics            `json:"overall"`
	ByLang   map[string]AnswerMetrics `json:"by_lang"`
	Outcomes []AnswerOutcome          `json:"outcomes,omitempty"`
}

// RunAnswers asks every question of set through a (with no history, under scope) and scores the
// answers. It stops at the first answering error.
func RunAnswers(ctx context.Context, set *AnswerSet, a Answerer, scope rag.Scope) (*AnswerReport, error) {
	rep := &AnswerReport{Set: set.Name, ByLang: map[string]AnswerMetrics{}}
	for _, q := range set.Questions {
		start := time.Now()
		ans, err := a.Answer(ctx, rag.Question{Text: q.Question, Scope: scope}, nil)
		if err != nil {
			return nil, fmt.Errorf("answer %s: %w", q.ID, err)
		}
		rep.Outcomes = append(rep.Outcomes, scoreAnswer(q, ans, time.Since(start)))
	}
	rep.Overall = summarize(rep.Outcomes)
	langs := map[string][]AnswerOutcome{}
	for _, o := range rep.Outcomes {
		langs[o.Lang] = append(langs[o.Lang], o)
	}
	for l, os := range langs {
		rep.ByLang[l] = summarize(os)
	}
	return rep, nil
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
		GoldFiles: q.GoldFiles, Answer: ans.Text, Abstained: ans.Abstained, Took: took, Standalone: ans.StandaloneQuery,
		Evidence: ans.Evidence, Missing: ans.Missing, MissShare: ans.MissingShare,
	}
	if ans.Abstained {
		o.AbstainWhy = ans.AbstainReason
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
	o.HasFact = ContainsFact(ans.Text, append([]string{q.GoldAnswer}, q.AltAnswers...))
	return o
}

func summarize(outcomes []AnswerOutcome) AnswerMetrics {
	var m AnswerMetrics
	lat := make([]time.Duration, 0, len(outcomes))
	var first, any, fact, refused, declined int
	for _, o := range outcomes {
		m.Questions++
		lat = append(lat, o.Took)
		if !o.Answerable {
			m.Unanswerable++
			if o.Abstained {
				declined++
			}
			continue
		}
		m.Answerable++
		if o.Abstained {
			refused++
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
	}
	if m.Answerable > 0 {
		n := float64(m.Answerable)
		m.FirstGold, m.AnyGold, m.HasFact, m.FalseRefusals = float64(first)/n, float64(any)/n, float64(fact)/n, float64(refused)/n
	}
	if m.Unanswerable > 0 {
		m.Declined = float64(declined) / float64(m.Unanswerable)
	}
	m.P50ms, m.P95ms = percentile(lat, 0.5), percentile(lat, 0.95)
	return m
}

// ContainsFact reports whether answer states one of the facts, comparing case- and
// accent-folded text with Markdown emphasis and repeated spaces removed ("**90 days**" holds
// "90 days"; "Días" holds "dias").
func ContainsFact(answer string, facts []string) bool {
	a := foldFact(answer)
	for _, f := range facts {
		if f = foldFact(f); f != "" && strings.Contains(a, f) {
			return true
		}
	}
	return false
}

func foldFact(s string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r), r == '*', r == '`', r == '_':
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
