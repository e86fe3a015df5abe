package handbookset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/internal/handbookset"
	"github.com/citahq/cita/rag/eval"
)

// projectSet is the handbook the project writes itself (testdata/handbook); heldOutSet is its
// Spanish-documents set (testdata/heldout-es) and bilingualHeldOutSet its English-and-Spanish
// documents set (testdata/heldout-bilingual), both written before any tuning and never used for
// a choice. projectSets lists every set the tests check.
var (
	projectSet          = filepath.Join("..", "..", "testdata", "handbook")
	heldOutSet          = filepath.Join("..", "..", "testdata", "heldout-es")
	bilingualHeldOutSet = filepath.Join("..", "..", "testdata", "heldout-bilingual")
	projectSets         = []string{projectSet, heldOutSet, bilingualHeldOutSet}
)

// TestProjectHandbookIsConsistent guards the project's own sets: every gold answer is stated in
// a gold file, every unanswerable question names terms the corpus lacks, and `cita eval
// --answers` loads the set.
func TestProjectHandbookIsConsistent(t *testing.T) {
	t.Parallel()
	for _, dir := range projectSets {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkSet(t, dir) })
	}
}

func checkSet(t *testing.T, dir string) {
	set, err := handbookset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Check() {
		t.Error(p)
	}
	langs := map[string]int{}
	for _, q := range set.Questions {
		if !q.Answerable && len(q.AbsentTerms) == 0 {
			t.Errorf("%s: unanswerable without absent_terms: say which key phrases were checked", q.ID)
		}
		langs[q.Lang]++
	}
	if langs["en"] == 0 || langs["es"] == 0 {
		t.Errorf("questions per language %v: the set must cover English and Spanish", langs)
	}
	if _, err := eval.LoadAnswerSet(dir); err != nil {
		t.Errorf("rag/eval cannot load the set: %v", err)
	}
}

// TestProjectHandbookFrontMatter checks that every Markdown page carries the metadata the
// indexer reads (title, owner, updated), so citations show a title and a date.
func TestProjectHandbookFrontMatter(t *testing.T) {
	t.Parallel()
	for _, dir := range projectSets {
		t.Run(filepath.Base(dir), func(t *testing.T) { frontMatter(t, dir) })
	}
}

func frontMatter(t *testing.T, dir string) {
	set, err := handbookset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for name, text := range set.Files {
		if filepath.Ext(name) != ".md" {
			continue
		}
		pages++
		head := strings.TrimSuffix(text, handbookset.Body(text))
		var fm struct{ Title, Owner, Updated string }
		if err := yaml.Unmarshal([]byte(strings.Trim(head, "-\n")), &fm); err != nil {
			t.Errorf("%s: front matter: %v", name, err)
			continue
		}
		if fm.Title == "" || fm.Owner == "" || fm.Updated == "" {
			t.Errorf("%s: front matter needs title, owner and updated, got %+v", name, fm)
		}
	}
	if pages == 0 {
		t.Fatal("no Markdown pages in the corpus")
	}
}

// TestCheckFindsProblems feeds broken sets to Check and expects each mistake to be reported.
func TestCheckFindsProblems(t *testing.T) {
	t.Parallel()
	const page = "---\ntitle: Leave\nowner: Ana <ana@example.com>\n---\nYou get 23 working days.\nParking fines are not paid.\n"
	tests := []struct {
		name      string
		questions string
		want      string // a substring of one reported problem; "" when none is expected
	}{
		{"consistent", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"23 WORKING days","kind":"number"}`, ""},
		{"gold not stated", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"25 working days","kind":"number"}`, `"25 working days" occurs in none`},
		{"alt not stated", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"23 working days","alt_answers":["23 días"],"kind":"number"}`, `"23 días" occurs in none`},
		{"gold only in front matter", `{"id":"a1","question":"owner?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"Ana","kind":"who"}`, `"Ana" occurs in none`},
		{"missing gold file", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["vacation.md"],"gold_answer":"23 working days","kind":"number"}`, `gold file "vacation.md" is not a file`},
		{"answerable without gold", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"","kind":"number"}`, "without gold_answer"},
		{"duplicate id", `{"id":"a1","question":"q","lang":"en","answerable":false,"gold_files":[],"gold_answer":"","kind":"fact"}` + "\n" + `{"id":"a1","question":"r","lang":"es","answerable":false,"gold_files":[],"gold_answer":"","kind":"fact"}`, "more than once"},
		{"unanswerable with gold", `{"id":"u1","question":"pets?","lang":"en","answerable":false,"gold_files":["leave.md"],"gold_answer":"","kind":"policy"}`, "unanswerable but has gold"},
		{"absent term present", `{"id":"u1","question":"parking?","lang":"en","answerable":false,"gold_files":[],"gold_answer":"","kind":"fact","absent_terms":["PARKING"]}`, `absent term "PARKING" occurs in leave.md`},
		{"absent term only inside a word", `{"id":"u1","question":"a day?","lang":"en","answerable":false,"gold_files":[],"gold_answer":"","kind":"fact","absent_terms":["day","king"]}`, ""},
		{"bad lang", `{"id":"a1","question":"days?","lang":"pt","answerable":true,"gold_files":["leave.md"],"gold_answer":"23 working days","kind":"number"}`, `lang "pt"`},
		{"bad kind", `{"id":"a1","question":"days?","lang":"en","answerable":true,"gold_files":["leave.md"],"gold_answer":"23 working days","kind":"amount"}`, `kind "amount"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeSet(t, map[string]string{"leave.md": page}, tt.questions)
			set, err := handbookset.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			problems := set.Check()
			if tt.want == "" {
				for _, p := range problems {
					t.Errorf("unexpected problem: %s", p)
				}
				return
			}
			for _, p := range problems {
				if strings.Contains(p.String(), tt.want) {
					return
				}
			}
			t.Errorf("no problem mentions %q; got %v", tt.want, problems)
		})
	}
}

// TestLoadRejectsUnknownFields: a misspelt field must not silently read as "no gold".
func TestLoadRejectsUnknownFields(t *testing.T) {
	t.Parallel()
	dir := writeSet(t, map[string]string{"a.md": "text"},
		`{"id":"a1","question":"q","lang":"en","answerable":false,"gold_files":[],"gold_answer":"","kind":"fact"}`+"\n"+
			`{"id":"a2","question":"q","lang":"en","answerable":true,"gold_files":["a.md"],"gold_answers":"text","kind":"fact"}`)
	_, err := handbookset.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "gold_answers") {
		t.Fatalf("Load error = %v, want one naming line 2 and the unknown field", err)
	}
}

func TestContainsWordFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, phrase string
		want         bool
	}{
		{"Bring your pet.", "pet", true},
		{"a competitive offer", "pet", false},
		{"petition, then pet", "pet", true},
		{"Oficina de BOGOTÁ", "bogotá", true},
		{"Jubilación anticipada", "jubilación", true},
		{"jubilaciones", "jubilación", false},
		{"car park rules", "car park", true},
		{"anything", "", false},
	}
	for _, tt := range tests {
		if got := handbookset.ContainsWordFold(tt.text, tt.phrase); got != tt.want {
			t.Errorf("ContainsWordFold(%q, %q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
}

func TestBodyStripsFrontMatterOnly(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"---\ntitle: A\n---\nbody\n", "body\n"},
		{"---\ntitle: A\nno end\n", "---\ntitle: A\nno end\n"},
		{"body only\n---\n", "body only\n---\n"},
	}
	for _, tt := range tests {
		if got := handbookset.Body(tt.in); got != tt.want {
			t.Errorf("Body(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func writeSet(t *testing.T, files map[string]string, questions string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, "corpus", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(questions+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
