package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// engDocs are what the asker (group eng) may read.
var engDocs = []testDoc{
	{"deploy.md", "Deploy guide", "en", []string{"eng"}, "Deploys run every Tuesday. The release train uses the blue pipeline and the canary cluster."},
	{"oncall.md", "On-call", "en", []string{"eng", "support"}, "The on-call engineer answers pages within ten minutes and writes the incident report after every release."},
	{"runbook.md", "Runbook", "es", []string{"eng"}, "El clúster canario recibe el despliegue del martes antes que producción."},
}

// hrDocs are outside the asker's scope: a name and a code only they hold, words the eng
// documents share (document frequencies), a Spanish word, and long texts (average length).
var hrDocs = []testDoc{
	{"salaries.md", "Salary bands", "en", []string{"hr"}, "Salary band B7 earns the Zanzibar retention bonus. Bonuses release every Tuesday with the release train of payroll."},
	{"reviews.md", "Reviews", "en", []string{"hr", "board"}, "Performance reviews of the canary cluster team, the blue pipeline team and the Zanzibar programme: canary canary release release Tuesday."},
	{"nominas.md", "Nóminas", "es", []string{"hr"}, "Las nóminas de Ocelote se pagan el martes; el despliegue de nóminas usa el clúster canario y el tren de lanzamiento."},
	{"handbook.md", "HR handbook", "en", []string{"hr"}, strings.Repeat("Employees read the handbook about leave, pay, pensions and the Zanzibar programme. ", 12)},
}

// TestAskExplainIgnoresDocumentsOutsideTheScope is the regression test of issue 12, finding 8:
// `cita ask --explain` showed full-text terms ("=word", stemmed lexemes) and BM25 scores computed
// from every document, so its output told an asker whether a word existed in documents outside
// their scope. The output for a scope must be the same whether or not such documents exist.
func TestAskExplainIgnoresDocumentsOutsideTheScope(t *testing.T) {
	clearEnv(t)
	without := explainIndex(t, engDocs)
	// The hr documents are indexed before, between and after the eng ones.
	with := explainIndex(t, []testDoc{hrDocs[0], engDocs[0], hrDocs[1], hrDocs[2], engDocs[1], engDocs[2], hrDocs[3]})
	questions := []string{
		"What is the Zanzibar bonus?",
		"zanzibar",
		"When do deploys run on Tuesday?",
		"release canary cluster",
		"¿Cuándo se paga a Ocelote?",
		"ocelote",
		"What does B7 earn?",
		"zanzibr retention",
		"handbook pensions",
	}
	for _, q := range questions {
		a, b := explainOutput(t, without, q), explainOutput(t, with, q)
		if a != b {
			t.Errorf("question %q: --explain differs when documents outside the scope exist\n--- without them ---\n%s\n--- with them ---\n%s", q, a, b)
		}
	}
}

// explainIndex indexes docs, in order, into a fresh schema and returns a configuration file for it.
func explainIndex(t *testing.T, docs []testDoc) string {
	t.Helper()
	return writeConfig(t, fmt.Sprintf("database_url: %q\n", indexedSchema(t, docs...)))
}

var (
	durationRE    = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`)
	stageTimingRE = regexp.MustCompile(`^(\S+: \S+\s+)+$`)
)

// explainOutput runs `cita ask --explain` as group eng and returns its output without timings.
func explainOutput(t *testing.T, configPath, question string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", configPath, "ask", "--groups", "eng", "--explain", "--no-cache", question}, &stdout, &stderr); code != 0 {
		t.Fatalf("cita ask %q exited %d: %s", question, code, stderr.String())
	}
	var lines []string
	for _, line := range strings.Split(stdout.String(), "\n") {
		line = durationRE.ReplaceAllString(line, "T")
		if stageTimingRE.MatchString(line) {
			continue // the stage timings, in map order
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
