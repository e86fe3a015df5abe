package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The organisation's glossary comes from entries in the configuration and from files; a bad
// entry or line is an error naming it, and so is a confident threshold below the guard's.
func TestAnswersGlossaryAndConfidentThreshold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "glossary.txt")
	if err := os.WriteFile(good, []byte("[ops]\nen: on-call | es: guardia, retén\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("en: fine, good\nfr: chose, truc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, yaml string
		entries    int
		err        []string
	}{
		{"none", "", 0, nil},
		{"entries and a file", "answers:\n  glossary:\n    - \"en: payslip | es: nómina\"\n  glossary_files: [" + good + "]\n", 2, nil},
		{"a bad entry", "answers:\n  glossary:\n    - \"en: alone\"\n", 0, []string{"answers.glossary[0]", "two terms"}},
		{"a header as an entry", "answers:\n  glossary:\n    - \"[ops]\"\n", 0, []string{"answers.glossary[0]", "not an entry"}},
		{"a bad line in a file", "answers:\n  glossary_files: [" + bad + "]\n", 0, []string{"answers.glossary_files", "bad.txt:2", "unknown language"}},
		{"a missing file", "answers:\n  glossary_files: [" + filepath.Join(dir, "nope.txt") + "]\n", 0, []string{"answers.glossary_files", "nope.txt"}},
		{"confident below the guard", "answers:\n  min_evidence: 0.3\n  confident_evidence: 0.2\n", 0, []string{"answers.confident_evidence", "below answers.min_evidence"}},
		{"confident out of range", "answers:\n  confident_evidence: 3\n", 0, []string{"answers.confident_evidence", "out of range"}},
		{"confident below the range", "answers:\n  confident_evidence: 0.001\n", 0, []string{"answers.confident_evidence", "0.001 is out of range", "0.01-2"}},
		{"confident negative", "answers:\n  confident_evidence: -0.2\n", 0, []string{"answers.confident_evidence", "-0.2 is out of range"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(writeTemp(t, c.yaml))
			checkErr(t, err, c.err...)
			if err != nil {
				return
			}
			g, err := cfg.Answers.OrgGlossary()
			if err != nil {
				t.Fatal(err)
			}
			if g.Len() != c.entries {
				t.Errorf("%d entries, want %d", g.Len(), c.entries)
			}
			if c.entries > 0 && !strings.HasPrefix(g.Entries[0].Origin, "answers.glossary[0]") {
				t.Errorf("first entry from %q, want answers.glossary[0]", g.Entries[0].Origin)
			}
		})
	}
}
