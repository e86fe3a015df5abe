package rag

import (
	"context"
	"strings"
	"testing"
	"time"
)

func compose(t *testing.T, question, lang string, sources ...Source) string {
	t.Helper()
	for i := range sources {
		sources[i].N = i + 1
	}
	comp, err := Extractive{}.Compose(context.Background(), ComposeRequest{Question: question, Lang: lang, Sources: sources}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return comp.Text
}

func firstLine(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }

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
	text := compose(t, "how many vacation days per year", "en",
		Source{Hit: Hit{ChunkID: 1, Lang: "en", Content: "The office opens at nine. Parking is free for cyclists."}},
		Source{Hit: Hit{ChunkID: 2, Lang: "en", Content: "Employees get 15 vacation days per year. Vacation requests need two weeks notice."}})
	if firstLine(text) != "Employees get 15 vacation days per year. [2]" {
		t.Errorf("first line of %q is not the quote with the number", text)
	}
	if strings.Contains(text, "[1]") {
		t.Errorf("answer %q cites the unrelated source", text)
	}
}

func TestExtractiveChoosesTheRowOfTheEntityAsked(t *testing.T) {
	t.Parallel()
	content := "Cada persona tiene derecho a días de vacaciones según su oficina:\n\n| Oficina | Días por año de servicio |\n|---|---|\n" +
		"| Medellín | 15 días hábiles |\n| Madrid | 23 días laborables |\n| Remoto | Según el contrato |"
	text := compose(t, "¿Cuántos días de vacaciones tengo en Madrid?", "es", Source{Hit: Hit{Lang: "es", Content: content, Section: "Días de vacaciones"}})
	if got := firstLine(text); got != "Oficina: Madrid; Días por año de servicio: 23 días laborables [1]" {
		t.Errorf("first line %q, want the Madrid row with its headers (answer %q)", got, text)
	}
	if strings.Contains(text, "Medellín") {
		t.Errorf("answer %q quotes another office's row", text)
	}
}

func TestExtractivePrefersTheBaseTableOverASubsection(t *testing.T) {
	t.Parallel()
	base := Source{Hit: Hit{ChunkID: 1, Lang: "es", Title: "Política de vacaciones", Section: "2. Días de vacaciones",
		Content: "| Oficina | Días por año de servicio |\n|---|---|\n| Medellín | 15 días hábiles |\n| Madrid | 23 días laborables |"}}
	seniority := Source{Hit: Hit{ChunkID: 2, Lang: "es", Title: "Política de vacaciones", Section: "2. Días de vacaciones > 2.2 Días adicionales por antigüedad",
		Content: "| Antigüedad | Días adicionales por año |\n|---|---|\n| De 5 a 9 años | 2 días |\n| De 10 a 14 años | 4 días |"}}
	text := compose(t, "¿Cuántos días de vacaciones tengo al año?", "es", seniority, base)
	if !strings.Contains(firstLine(text), "15 días hábiles") && !strings.Contains(firstLine(text), "23 días laborables") {
		t.Errorf("first line of %q is not a row of the base-days table", text)
	}
}

func TestExtractiveQuotesALeadSentenceWithItsList(t *testing.T) {
	t.Parallel()
	content := "Deploys go through the pipeline.\n\nTo deploy to production, follow these steps:\n\n" +
		"1. Open the deploy-production workflow.\n2. Get two approvals.\n   - the on-call engineer\n   - an engineering manager\n3. Watch the canary for 15 minutes."
	text := compose(t, "How do I deploy to production?", "en", Source{Hit: Hit{Lang: "en", Content: content}})
	want := "To deploy to production, follow these steps: [1]\n- Open the deploy-production workflow.\n- Get two approvals.\n  - the on-call engineer\n  - an engineering manager\n- Watch the canary for 15 minutes."
	if !strings.HasPrefix(text, want) {
		t.Errorf("answer:\n%s\nwant it to start with:\n%s", text, want)
	}
	if strings.Contains(text, "- -") {
		t.Errorf("answer %q repeats a bullet mark", text)
	}
}

func TestExtractiveNeverQuotesFAQQuestions(t *testing.T) {
	t.Parallel()
	content := "**¿Puedo ceder días de vacaciones a un compañero?** No. Las vacaciones son personales e intransferibles.\n\n" +
		"How long does a refund take?\n\nRefunds reach your account within 10 business days."
	for _, q := range []struct{ question, lang, want string }{
		{"¿puedo ceder mis días de vacaciones a un compañero?", "es", "Las vacaciones son personales e intransferibles. [1]"},
		{"how long does a refund take", "en", "Refunds reach your account within 10 business days. [1]"},
	} {
		text := compose(t, q.question, q.lang, Source{Hit: Hit{Lang: q.lang, Content: content}})
		if strings.Contains(text, "?") {
			t.Errorf("%q: answer %q quotes an FAQ question", q.question, text)
		}
		if firstLine(text) != q.want {
			t.Errorf("%q: first line %q, want %q", q.question, firstLine(text), q.want)
		}
	}
}

func TestExtractiveUsesTheSentenceBeforeAsContext(t *testing.T) {
	t.Parallel()
	content := "Session Lifetime: the maximum idle time before you must sign in again. We have configured this to be 4 hrs. The factor lifetime is separate."
	text := compose(t, "how long can I stay idle before I have to sign in again?", "en", Source{Hit: Hit{Lang: "en", Content: content}})
	if !strings.Contains(text, "4 hrs") {
		t.Errorf("answer %q misses the sentence with the duration", text)
	}
}

func TestExtractiveFramesInTheQuestionsLanguage(t *testing.T) {
	t.Parallel()
	src := Source{Hit: Hit{Lang: "en", Content: "Production deploys need two approvals: the on-call engineer and an engineering manager. Staging deploys need none."}}
	src.N = 1
	comp, err := Extractive{}.Compose(context.Background(), ComposeRequest{Question: "¿Quién aprueba un despliegue a producción?", Lang: "es",
		Sources: []Source{src}, Translation: "Who approves a deployment to production?", TranslationLang: "en"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := comp.Text
	if !strings.HasPrefix(text, "Production deploys need two approvals") {
		t.Errorf("answer %q does not quote the English sentence that answers", text)
	}
	if !strings.Contains(text, "(Cito el texto original, en inglés.)") {
		t.Errorf("answer %q does not say, in Spanish, that it quotes English text", text)
	}
}

func TestExtractiveSaysWhichVersionIsNewer(t *testing.T) {
	t.Parallel()
	old := Source{Hit: Hit{ChunkID: 1, DocumentID: 1, Lang: "en", Title: "Travel Policy 2023", UpdatedAt: time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC),
		Content: "| City | Per diem |\n|---|---|\n| Madrid | € 45 per day |"}}
	newer := Source{Hit: Hit{ChunkID: 2, DocumentID: 2, Lang: "en", Title: "Travel Policy 2025", UpdatedAt: time.Date(2025, 9, 15, 0, 0, 0, 0, time.UTC),
		Content: "| City | Per diem |\n|---|---|\n| Madrid | € 60 per day |"}}
	text := compose(t, "What is the per diem in Madrid?", "en", old, newer)
	if !strings.Contains(text, "disagree") || !strings.Contains(text, "[2] is the more recently updated one") {
		t.Errorf("answer %q does not say the 2025 source is newer", text)
	}
}

func TestVerifyCitationsNumbersSourcesInTheOrderTheyAreCited(t *testing.T) {
	t.Parallel()
	sources := []Source{{N: 1, Hit: Hit{ChunkID: 10}}, {N: 2, Hit: Hit{ChunkID: 20}}, {N: 3, Hit: Hit{ChunkID: 30}}}
	text, cited, invalid := VerifyCitations("Answer [3]. More [1] and [7].", sources)
	if text != "Answer [1]. More [2] and." {
		t.Errorf("text %q", text)
	}
	if len(cited) != 2 || cited[0].ChunkID != 30 || cited[0].N != 1 || cited[1].ChunkID != 10 || cited[1].N != 2 {
		t.Errorf("cited %+v, want chunk 30 as [1] and chunk 10 as [2]", cited)
	}
	if len(invalid) != 1 || invalid[0] != 7 {
		t.Errorf("invalid %v, want [7]", invalid)
	}
}

func TestExtractiveAnswersFromTheNewerVersionFirst(t *testing.T) {
	t.Parallel()
	old := Source{Hit: Hit{ChunkID: 1, DocumentID: 1, Lang: "en", Title: "Business Travel Policy", UpdatedAt: time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC),
		Content: "| City | Per diem |\n|---|---|\n| Madrid | € 45 per day |"}}
	newer := Source{Hit: Hit{ChunkID: 2, DocumentID: 2, Lang: "en", Title: "Travel Policy 2025", UpdatedAt: time.Date(2025, 9, 15, 0, 0, 0, 0, time.UTC),
		Content: "| Destination | Per diem |\n|---|---|\n| Madrid | € 60 per day |"}}
	text := compose(t, "What is the per diem in Madrid?", "en", old, newer)
	if !strings.Contains(firstLine(text), "€ 60") {
		t.Errorf("first line of %q is not the newer policy's", text)
	}
}

func TestRowUnitsSkipEmptyHeaders(t *testing.T) {
	t.Parallel()
	units := answerUnitsOf("| | Production | Staging |\n|---|---|---|\n| Approvals | Two | None |")
	if len(units) != 1 || units[0].text != "Approvals; Production: Two; Staging: None" {
		t.Errorf("units %+v", units)
	}
}

// A table row is chosen by the column the question names: "days of vacation a year" quotes the
// row whose "Days per year" column holds the days, not a sentence that mentions days and
// vacation.
func TestTableRowIsChosenByItsHeader(t *testing.T) {
	t.Parallel()
	text := compose(t, "¿Cuántos días de vacación tengo al año?", "es",
		Source{Hit: Hit{ChunkID: 1, Lang: "es", Title: "Política de vacaciones", Section: "Épocas restringidas",
			Content: "Algunos momentos del año son críticos:\n\n- Cosecha: el equipo de calidad solo puede disfrutar vacaciones de hasta tres días."}},
		Source{Hit: Hit{ChunkID: 2, Lang: "es", Title: "Política de vacaciones", Section: "Días por oficina",
			Content: "| Oficina | Días por año de servicio | Tipo de día |\n|---|---|---|\n| Lima | 30 días naturales | Natural |"}})
	if !strings.HasPrefix(text, "Oficina: Lima; Días por año de servicio: 30 días naturales") {
		t.Errorf("answer %q does not quote the row first", text)
	}
}
