// Package validityset is the project's validity test set (testdata/validity): a corpus of policy
// versions, an archive folder and a replaced price list, and questions whose right answer
// depends on which documents are current. Score counts the answers that cite a document that is
// no longer current as if it were.
package validityset

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/rag"
)

// Question is one question of the set: the documents it may cite as current, and those it may
// cite only with their "no longer current" note (the question names their period).
type Question struct {
	Question string   `yaml:"question"`
	Current  []string `yaml:"current"`
	History  []string `yaml:"history"`
}

// Dir returns testdata/validity in this checkout.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "validity")
}

// Corpus returns the corpus folder.
func Corpus() string { return filepath.Join(Dir(), "corpus") }

// Questions reads the set's questions. It returns an error when the file cannot be read or parsed.
func Questions() ([]Question, error) {
	data, err := os.ReadFile(filepath.Join(Dir(), "questions.yaml"))
	if err != nil {
		return nil, fmt.Errorf("read validity questions: %w", err)
	}
	var qs []Question
	if err := yaml.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("parse validity questions: %w", err)
	}
	return qs, nil
}

// Verdict is one answer's check.
type Verdict struct {
	Question string
	// CitedAsCurrent are the documents not current now that the answer cites with no note saying
	// so: the failure the set exists to catch.
	CitedAsCurrent []string
	// Unexpected are cited documents the question lists neither as current nor as history.
	Unexpected []string
	Abstained  bool
}

// Check judges ans for q. notCurrent holds the corpus documents that are no longer current
// (expired or superseded), by path: the truth, taken from an index with validity metadata.
func Check(q Question, ans *rag.Answer, notCurrent map[string]bool) Verdict {
	v := Verdict{Question: q.Question, Abstained: ans.Abstained}
	allowed := map[string]bool{}
	for _, p := range append(append([]string(nil), q.Current...), q.History...) {
		allowed[p] = true
	}
	seen := map[string]bool{}
	for _, src := range ans.Sources {
		if seen[src.Path] {
			continue
		}
		seen[src.Path] = true
		if notCurrent[src.Path] && !notedAsHistory(ans.Text, src) {
			v.CitedAsCurrent = append(v.CitedAsCurrent, src.Path)
		}
		if !allowed[src.Path] {
			v.Unexpected = append(v.Unexpected, src.Path)
		}
	}
	return v
}

// notedAsHistory reports whether the answer says source src is no longer current: its note
// names the source's number, in either language.
func notedAsHistory(text string, src rag.Source) bool {
	if !src.NoLongerCurrent(time.Now()) {
		return false
	}
	n := fmt.Sprintf("[%d]", src.N)
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, n) && (strings.Contains(line, "no longer current") || strings.Contains(line, "ya no está vigente")) {
			return true
		}
	}
	return false
}
