// Package handbookset checks a handbook evaluation set (DIR/corpus/ and DIR/questions.jsonl, the
// layout `cita eval --answers` reads) for the mistakes that make its scores lie: a gold answer its
// gold files do not state, a gold file that does not exist, a repeated id, an unanswerable
// question that carries gold, or a term said to be absent that the corpus contains.
package handbookset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/citahq/cita/rag/eval"
)

// Question is one line of questions.jsonl: the fields rag/eval reads, plus AbsentTerms, an
// optional list of an unanswerable question's key phrases that were checked to be absent from
// the corpus.
type Question struct {
	eval.AnswerQuestion
	AbsentTerms []string `json:"absent_terms,omitempty"`
}

// Langs and Kinds are the values the handbook layout allows in lang and kind.
var (
	Langs = []string{"en", "es"}
	Kinds = []string{"fact", "number", "procedure", "table", "who", "policy"}
)

// Problem is one thing wrong with a set, tied to the question it concerns (ID is empty for
// problems of the set as a whole).
type Problem struct {
	ID  string
	Msg string
}

func (p Problem) String() string {
	if p.ID == "" {
		return p.Msg
	}
	return p.ID + ": " + p.Msg
}

// Set is a loaded handbook set: its questions and the text of every corpus file, keyed by the
// file's slash-separated path relative to DIR/corpus.
type Set struct {
	Questions []Question
	Files     map[string]string
}

// Load reads DIR/questions.jsonl and every file under DIR/corpus. It returns an error naming the
// line when a line is not a JSON object of known fields, and an error when a file cannot be read.
func Load(dir string) (*Set, error) {
	set := &Set{Files: map[string]string{}}
	corpus := filepath.Join(dir, "corpus")
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(corpus, p)
		if err != nil {
			return err
		}
		set.Files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	qs, err := readQuestions(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		return nil, err
	}
	set.Questions = qs
	return set, nil
}

func readQuestions(p string) ([]Question, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	var qs []Question
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields() // a misspelt "gold_answers" would otherwise pass as no gold
		var q Question
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", filepath.Base(p), line, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	return qs, nil
}

// Check lists everything wrong with the set; an empty result means the set is consistent.
func (s *Set) Check() []Problem {
	var out []Problem
	if len(s.Questions) == 0 {
		out = append(out, Problem{Msg: "no questions"})
	}
	seen := map[string]bool{}
	for _, q := range s.Questions {
		add := func(format string, args ...any) {
			out = append(out, Problem{ID: q.ID, Msg: fmt.Sprintf(format, args...)})
		}
		switch {
		case q.ID == "":
			add("question %q has no id", q.Question)
		case seen[q.ID]:
			add("id is used more than once")
		}
		seen[q.ID] = true
		if q.Question == "" {
			add("empty question")
		}
		if !slices.Contains(Langs, q.Lang) {
			add("lang %q is not one of %v", q.Lang, Langs)
		}
		if !slices.Contains(Kinds, q.Kind) {
			add("kind %q is not one of %v", q.Kind, Kinds)
		}
		if q.Answerable {
			s.checkAnswerable(q, add)
		} else {
			s.checkUnanswerable(q, add)
		}
	}
	return out
}

func (s *Set) checkAnswerable(q Question, add func(string, ...any)) {
	if len(q.GoldFiles) == 0 {
		add("answerable without gold_files")
	}
	if q.GoldAnswer == "" {
		add("answerable without gold_answer")
	}
	if len(q.AbsentTerms) > 0 {
		add("absent_terms on an answerable question")
	}
	var bodies []string
	for _, f := range q.GoldFiles {
		text, ok := s.Files[f]
		if !ok {
			add("gold file %q is not a file of the corpus", f)
			continue
		}
		bodies = append(bodies, Body(text))
	}
	for _, ans := range append([]string{q.GoldAnswer}, q.AltAnswers...) {
		if ans == "" {
			continue
		}
		if !slices.ContainsFunc(bodies, func(b string) bool { return ContainsFold(b, ans) }) {
			add("%q occurs in none of its gold files %v", ans, q.GoldFiles)
		}
	}
	for _, alt := range q.AltAnswers {
		if alt == "" {
			add("empty alt_answers entry")
		}
	}
}

func (s *Set) checkUnanswerable(q Question, add func(string, ...any)) {
	if len(q.GoldFiles) > 0 || q.GoldAnswer != "" || len(q.AltAnswers) > 0 {
		add("unanswerable but has gold_files, gold_answer or alt_answers")
	}
	for _, term := range q.AbsentTerms {
		if term == "" {
			add("empty absent_terms entry")
			continue
		}
		for _, name := range s.sortedFiles() {
			if ContainsWordFold(s.Files[name], term) {
				add("absent term %q occurs in %s", term, name)
			}
		}
	}
}

func (s *Set) sortedFiles() []string {
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
