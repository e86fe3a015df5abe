package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// An answer searched while the translator was down says so, and why, in --explain and in
// --json --explain; one searched with its translation says nothing of the kind.
func TestExplainSaysTheTranslationWasMissing(t *testing.T) {
	t.Parallel()
	const why = "translator failed: apertium eng-spa: down since 10:00:00"
	for _, tc := range []struct {
		name  string
		trace rag.SearchTrace
		want  bool
	}{
		{"down", rag.SearchTrace{TranslationMissing: why}, true},
		{"translated", rag.SearchTrace{Translated: "¿Cuántos días?", TranslatedLang: "es"}, false},
	} {
		ans := &rag.Answer{Text: "23 days.", Lang: "en", Search: &rag.SearchResult{Trace: tc.trace}}
		var text bytes.Buffer
		writeExplain(&text, ans)
		if got := strings.Contains(text.String(), "translation missing") && strings.Contains(text.String(), why); got != tc.want {
			t.Errorf("%s: --explain says the translation was missing: %v, want %v\n%s", tc.name, got, tc.want, text.String())
		}
		var raw bytes.Buffer
		if err := writeAnswerJSON(&raw, ans, true); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Trace struct {
				Missing string `json:"translation_missing"`
			} `json:"trace"`
		}
		if err := json.Unmarshal(raw.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if got := out.Trace.Missing == why; got != tc.want {
			t.Errorf("%s: JSON translation_missing %q, want it said: %v", tc.name, out.Trace.Missing, tc.want)
		}
	}
}
