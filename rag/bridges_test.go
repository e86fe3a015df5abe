package rag

import (
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/glossary"
)

func testLexicon(t *testing.T, text string) *Lexicon {
	t.Helper()
	g, err := glossary.Parse(strings.NewReader(text), "test")
	if err != nil {
		t.Fatal(err)
	}
	return NewLexicon(WeightedGlossary{Glossary: g, Weight: 0.8})
}

func bridgeTargets(bs []Bridge) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.From+"→"+b.To)
	}
	slices.Sort(out)
	return out
}

func TestLexiconFindsPhrasesBeforeTheirWordsAndInflectedForms(t *testing.T) {
	t.Parallel()
	lx := testLexicon(t, `
en: sick leave | es: baja por enfermedad, incapacidad temporal
en: drop | es: baja
en: moving house | es: mudanza, traslado de domicilio
`)
	got := bridgeTargets(lx.Bridges("¿Cuántas bajas por enfermedad se pagan?", "es"))
	want := []string{"bajas enfermedad→incapacidad temporal", "bajas enfermedad→sick leave"}
	if !slices.Equal(got, want) {
		t.Errorf("bridges %v, want %v (the phrase, in the plural, not its first word alone)", got, want)
	}
	got = bridgeTargets(lx.Bridges("days off for moving house?", "en"))
	if !slices.Equal(got, []string{"moving house→mudanza", "moving house→traslado de domicilio"}) {
		t.Errorf("bridges %v", got)
	}
	if got := lx.Bridges("the office opens at nine", "en"); len(got) != 0 {
		t.Errorf("no glossary term in the question, got %v", got)
	}
	var nilLexicon *Lexicon
	if nilLexicon.Bridges("sick leave", "en") != nil {
		t.Error("a nil lexicon finds nothing")
	}
}

// A term people borrow from the other language is found when it cannot be a word of the
// question's own by chance.
func TestLexiconFindsBorrowedTermsOfTheOtherLanguage(t *testing.T) {
	t.Parallel()
	lx := testLexicon(t, `
en: per diem | es: dieta, viáticos
en: red | es: rojo
`)
	got := bridgeTargets(lx.Bridges("¿cuánto es el per diem en Lisboa?", "es"))
	if !slices.Equal(got, []string{"per diem→dieta", "per diem→viaticos"}) && !slices.Equal(got, []string{"per diem→dieta", "per diem→viáticos"}) {
		t.Errorf("bridges %v", got)
	}
	if got := lx.Bridges("la red de la oficina", "es"); len(got) != 0 {
		t.Errorf("a short English word inside a Spanish question is not taken for English: %v", got)
	}
}

// A passage that says what the question asks in other words (a glossary bridge) supports the
// answer; without the bridge it does not.
func TestBridgesLetTheAnswererMatchOtherWords(t *testing.T) {
	t.Parallel()
	lx := testLexicon(t, "es: mudanza | es: traslado de domicilio, traslado del domicilio habitual")
	question := "¿cuántos días me dan por mudanza?"
	src := []Source{{N: 1, Hit: Hit{Lang: "es", Section: "Permisos retribuidos",
		Content: "Por traslado del domicilio habitual, dos días hábiles. Por matrimonio, quince días naturales."}}}
	without := Support(ComposeRequest{Question: question, Lang: "es", Sources: src})
	req := ComposeRequest{Question: question, Lang: "es", Sources: src, Bridges: lx.Bridges(question, "es")}
	with := Support(req)
	if with.Score <= without.Score || with.Score < DefaultMinEvidence {
		t.Errorf("support with the bridge %.2f, without %.2f: the bridge must lift it over %.2f", with.Score, without.Score, DefaultMinEvidence)
	}
	if slices.Contains(with.Missing, "mudanza") || !slices.Contains(without.Missing, "mudanza") {
		t.Errorf("missing with %v, without %v", with.Missing, without.Missing)
	}
	comp, err := Extractive{}.Compose(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(comp.Text, "Por traslado del domicilio habitual, dos días hábiles.") {
		t.Errorf("answer %q does not quote the moving sentence first", comp.Text)
	}
	if len(comp.Quotes) == 0 || !slices.ContainsFunc(comp.Quotes[0].Matched, func(m string) bool { return strings.Contains(m, "(as traslado") }) {
		t.Errorf("the quote's matched words %v do not say which bridge matched", comp.Quotes)
	}
}

// In a translation, the dictionary's other senses of a word the translator rendered one way
// count as that word: "presupuesto de formación" translated as "estimate of formation" still
// matches a passage on the training budget.
func TestOtherSensesOfATranslatedWordCount(t *testing.T) {
	t.Parallel()
	question := "¿cuánto es el presupuesto de formación por persona?"
	src := []Source{{N: 1, Hit: Hit{Lang: "en", Section: "Learning",
		Content: "The training budget is 800 EUR per person and year."}}}
	base := ComposeRequest{Question: question, Lang: "es", Sources: src,
		Translation: "How much is the estimate of formation per person?", TranslationLang: "en"}
	without := Support(base)
	base.Bridges = []Bridge{
		{From: "presupuesto", FromLang: "es", To: "estimate", Lang: "en", Weight: OtherSenseWeight, Via: "dictionary"},
		{From: "presupuesto", FromLang: "es", To: "budget", Lang: "en", Weight: OtherSenseWeight, Via: "dictionary"},
		{From: "formación", FromLang: "es", To: "formation", Lang: "en", Weight: OtherSenseWeight, Via: "dictionary"},
		{From: "formación", FromLang: "es", To: "training", Lang: "en", Weight: OtherSenseWeight, Via: "dictionary"},
	}
	with := Support(base)
	if with.Score <= without.Score*1.2 {
		t.Errorf("support with the other senses %.2f, without %.2f", with.Score, without.Score)
	}
	// A concept the translation lost altogether becomes a term of its own in the translation.
	base.Translation = "How much is the thing per person?"
	base.Bridges = []Bridge{{From: "presupuesto de formación", FromLang: "es", To: "training budget", Lang: "en", Weight: 0.85}}
	vs := questionVariants(base)
	tv := vs[len(vs)-1]
	if !tv.translated || tv.in(bagOf("the training budget", "en"), bridgeStem+"presupuesto de formación") != 0.85 {
		t.Errorf("translation variant %+v lacks the lost concept", tv)
	}
}

// A word the question is about that only a passage in the other language says, through the
// glossary ("parking" where the only page says "parqueadero"), is the question's key: a passage
// in the question's language sharing its other words ("employees", "office") is not given as a
// confident answer (it was: "Is there parking…" answered with the office Wi-Fi).
func TestAKeyWordOnlyTheOtherLanguageSaysIsTheKey(t *testing.T) {
	t.Parallel()
	lx := testLexicon(t, "en: parking, parking space | es: parqueadero, aparcamiento")
	question := "Is there parking for employees at the Medellín office?"
	src := []Source{
		{N: 1, Hit: Hit{ChunkID: 1, DocumentID: 1, Lang: "en", Section: "Office network", Content: "Employees at the Medellín office use the staff Wi-Fi with their SSO credentials."}},
		{N: 2, Hit: Hit{ChunkID: 2, DocumentID: 2, Lang: "es", Section: "Medellín", Content: "La oficina de Medellín tiene parqueadero para 12 carros y 30 bicicletas."}},
	}
	req := ComposeRequest{Question: question, Lang: "en", Sources: src, Bridges: lx.Bridges(question, "en"),
		Translation: "¿Hay aparcamiento para empleados en la oficina de Medellín?", TranslationLang: "es"}
	rep := Support(req)
	if rep.Answerability.Key != "parking" || rep.Answerability.KeyLocal {
		t.Errorf("key word %q (said where the answer stands: %v), want parking, not said there", rep.Answerability.Key, rep.Answerability.KeyLocal)
	}
	if why := replyBand(rep, DefaultConfidentEvidence); why != HedgeKeyNotLocal {
		t.Errorf("reply band %q (support %.2f): want a hedge for the key word the Wi-Fi passage lacks", why, rep.Score)
	}
}
