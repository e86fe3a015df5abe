package rag

import (
	"strings"
	"testing"

	"github.com/citahq/cita/internal/glossary"
)

// Questions that are one need, in either language and other words, join one topic through the
// glossary; a different need starts its own.
func TestTopicsGroupOneNeedAcrossLanguages(t *testing.T) {
	t.Parallel()
	g, err := glossary.Parse(strings.NewReader(`
en: parking, car park, parking space | es: aparcamiento, parqueadero, plaza de aparcamiento
en: payslip, pay slip, pay stub | es: nómina, recibo de sueldo
`), "test")
	if err != nil {
		t.Fatal(err)
	}
	r := NewTopicReader(NewLexicon(WeightedGlossary{Glossary: g, Weight: 1}), nil)
	topics := NewTopics(0)
	ask := func(q string) int { return topics.Assign(r.Signature(t.Context(), q)) }
	parking := ask("is there parking for employees at the office?")
	if got := ask("¿hay parqueadero en la oficina?"); got != parking {
		t.Errorf("the Spanish parking question started topic %d, want %d", got, parking)
	}
	payslip := ask("where do I download my payslip?")
	if payslip == parking {
		t.Error("the payslip question joined the parking topic")
	}
	if got := ask("¿dónde descargo el recibo de sueldo?"); got != payslip {
		t.Errorf("the Spanish payslip question joined topic %d, want %d", got, payslip)
	}
	if s := r.Signature(t.Context(), "what's the payslip?"); s["en:s"] != 0 || s["en:what"] != 0 {
		t.Errorf("signature %v keeps how the question is asked", s)
	}
}

// A grouping restored from what was stored goes on as if it had never stopped: the gap record
// groups questions a batch at a time, across restarts and replicas.
func TestTopicsRestoredGoOnAsBefore(t *testing.T) {
	t.Parallel()
	g, err := glossary.Parse(strings.NewReader("en: parking, car park | es: aparcamiento, parqueadero\nen: payslip, pay stub | es: nómina\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	r := NewTopicReader(NewLexicon(WeightedGlossary{Glossary: g, Weight: 1}), nil)
	first := []string{"is there parking at the office?", "where do I download my payslip?", "what is the wifi password?"}
	then := []string{"¿hay parqueadero?", "my pay stub is missing", "how do I join the guest wifi?", "who approves travel?"}
	whole := NewTopics(0)
	for _, q := range first {
		whole.Assign(r.Signature(t.Context(), q))
	}
	stopped := NewTopics(0)
	for _, q := range first {
		stopped.Assign(r.Signature(t.Context(), q))
	}
	var stored []TopicState
	for i := range stopped.Len() {
		s := stopped.Topic(i)
		s.ID = int64(100 + i)
		stored = append(stored, s)
	}
	df, n := stopped.DF()
	restored := RestoreTopics(0, stored, df, n)
	for _, q := range then {
		want := whole.Assign(r.Signature(t.Context(), q))
		if got := restored.Assign(r.Signature(t.Context(), q)); got != want {
			t.Errorf("%q: restored grouping chose topic %d, the uninterrupted one %d", q, got, want)
		}
	}
	if id := restored.Topic(0).ID; id != 100 {
		t.Errorf("restored topic 0 has id %d, want the stored 100", id)
	}
	if restored.Len() > len(stored) && restored.Topic(restored.Len()-1).ID != 0 {
		t.Error("a topic started after the restore has a stored id")
	}
}
