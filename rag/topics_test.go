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
