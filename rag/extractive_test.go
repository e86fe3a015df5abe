package rag

import (
	"context"
	"strings"
	"testing"
)

func TestSentencesSkipsTableHeadersAndKeepsRows(t *testing.T) {
	t.Parallel()
	got := Sentences("Intro line one. Second sentence here.\n| Oficina | Días |\n|---|---|\n| Medellín | 15 días hábiles |")
	want := []string{"Intro line one.", "Second sentence here.", "| Medellín | 15 días hábiles |"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
}

func TestExtractiveCitesTheMatchingSource(t *testing.T) {
	t.Parallel()
	sources := []Source{
		{N: 1, Hit: Hit{Content: "The office opens at nine. Parking is free for cyclists."}},
		{N: 2, Hit: Hit{Content: "Employees get 15 vacation days per year. Vacation requests need two weeks notice."}},
	}
	comp, err := Extractive{}.Compose(context.Background(), ComposeRequest{Question: "how many vacation days per year", Lang: "en", Sources: sources}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(comp.Text, "15 vacation days per year. [2]") && !strings.Contains(comp.Text, "15 vacation days per year [2]") {
		t.Errorf("answer %q does not quote source 2 with its citation", comp.Text)
	}
	if strings.Contains(comp.Text, "[1]") {
		t.Errorf("answer %q cites the unrelated source", comp.Text)
	}
	text, cited, invalid := VerifyCitations(comp.Text+" [7]", sources)
	if len(invalid) != 1 || invalid[0] != 7 || strings.Contains(text, "[7]") || len(cited) != 1 || cited[0].N != 1 {
		t.Errorf("VerifyCitations: text %q cited %v invalid %v", text, cited, invalid)
	}
}

func TestExtractivePrefersTheLineWithTheNumberForQuantityQuestions(t *testing.T) {
	t.Parallel()
	sources := []Source{{N: 1, Hit: Hit{Content: "Tus días de vacaciones se piden en el portal.\n| Medellín | 15 días hábiles de vacaciones |"}}}
	comp, err := Extractive{MaxSentences: 1}.Compose(context.Background(), ComposeRequest{Question: "¿Cuántos días de vacaciones tengo?", Lang: "es", Sources: sources}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(comp.Text, "15 días hábiles") {
		t.Errorf("answer %q does not quote the line with the number", comp.Text)
	}
}

func TestAnswerUnitsGiveTableRowsTheirHeaders(t *testing.T) {
	t.Parallel()
	got := answerUnits("Cada persona tiene días de vacaciones.\n| Oficina | Días por año |\n|---|---|\n| Medellín | 15 días hábiles |\n| Madrid | 23 días laborables |\nFin.")
	want := []string{"Cada persona tiene días de vacaciones.", "Oficina: Medellín; Días por año: 15 días hábiles", "Oficina: Madrid; Días por año: 23 días laborables", "Fin."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answerUnits = %q, want %q", got, want)
	}
}
