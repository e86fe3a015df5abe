// Package eval measures retrieval on datasets in BEIR layout (corpus.jsonl, queries.jsonl,
// qrels/test.tsv): nDCG@10, Recall@10, MRR@10, Recall@100 and latency per search mode.
package eval

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CorpusDoc is one corpus.jsonl line.
type CorpusDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is one queries.jsonl line; History holds earlier user turns (oldest first) when the set
// has follow-ups.
type Query struct {
	ID      string   `json:"_id"`
	Text    string   `json:"text"`
	History []string `json:"history"`
}

// Dataset is a loaded BEIR set: qrels map a query id to its relevant doc ids and grades.
type Dataset struct {
	Name    string
	Corpus  []CorpusDoc
	Queries []Query
	Qrels   map[string]map[string]int
}

// Load reads a BEIR folder. It returns an error naming the file and line of bad input.
func Load(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(filepath.Clean(dir)), Qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(d CorpusDoc) { ds.Corpus = append(ds.Corpus, d) }); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(q Query) { ds.Queries = append(ds.Queries, q) }); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "qrels", "test.tsv")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open qrels: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.FieldsPerRecord = -1
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if line == 1 && rec[0] == "query-id" {
			continue
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("%s line %d: want query-id, corpus-id, score", path, line)
		}
		score, err := strconv.Atoi(strings.TrimSpace(rec[2]))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: score %q: %w", path, line, rec[2], err)
		}
		if ds.Qrels[rec[0]] == nil {
			ds.Qrels[rec[0]] = map[string]int{}
		}
		ds.Qrels[rec[0]][rec[1]] = score
	}
	// Keep only queries with judgements.
	kept := ds.Queries[:0]
	for _, q := range ds.Queries {
		if len(ds.Qrels[q.ID]) > 0 {
			kept = append(kept, q)
		}
	}
	ds.Queries = kept
	return ds, nil
}

func readJSONL[T any](path string, add func(T)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		add(v)
	}
	return sc.Err()
}

// LoadCorpus reads only a BEIR folder's corpus.jsonl, for runs that need no judgements (speed).
// It returns an error naming the file and line of bad input.
func LoadCorpus(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(filepath.Clean(dir))}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(d CorpusDoc) { ds.Corpus = append(ds.Corpus, d) }); err != nil {
		return nil, err
	}
	return ds, nil
}

// LoadQuestions reads the question texts of a JSON Lines file: BEIR's queries.jsonl ("text") or
// a handbook set's questions.jsonl ("question"). It returns an error naming the line of bad
// input, or when the file holds no question.
func LoadQuestions(path string) ([]string, error) {
	var out []string
	err := readJSONL(path, func(q struct {
		Text     string `json:"text"`
		Question string `json:"question"`
	}) {
		if t := strings.TrimSpace(q.Text + " " + q.Question); t != "" {
			out = append(out, t)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no question (want a \"text\" or \"question\" field per line)", path)
	}
	return out, nil
}
