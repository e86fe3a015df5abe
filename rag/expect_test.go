package rag

import (
	"strings"
	"testing"
)

func TestDetectExpect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		question string
		want     ExpectKind
		unit     string
	}{
		{"How many vacation days do I get per year?", ExpectQuantity, "day"},
		{"¿Cuántos días de vacaciones tengo en Madrid?", ExpectQuantity, "day"},
		{"cuanto cuesta el cafe nariño", ExpectQuantity, "money"},
		{"how long can a session stay inactive before the portal signs me out?", ExpectQuantity, ""},
		{"my 19 year old wants to join the plan, what's the age limit", ExpectQuantity, "age"},
		{"client lunch on the company card - what's the cap per guest?", ExpectQuantity, "money"},
		{"what's the hotel limit per night in lisbon?", ExpectQuantity, "money"},
		{"¿Quién aprueba un despliegue a producción?", ExpectWho, ""},
		{"who owns the travel policy?", ExpectWho, ""},
		{"lost my card, who do I tell?", ExpectWho, ""},
		{"who do I email if my sick leave runs long?", ExpectContact, ""},
		{"what email do I use to order a monitor?", ExpectContact, ""},
		{"¿Qué herramienta uso para registrar mis vacaciones?", ExpectTool, ""},
		{"what tool does IT use to wipe Macs?", ExpectTool, ""},
		{"when am I eligible for a new phone?", ExpectDate, ""},
		{"portugal - until when can I use carried-over leave?", ExpectDate, ""},
		{"¿Cuándo caducan las horas de formación que no he usado?", ExpectDate, ""},
		{"How do I deploy Tostador to production?", ExpectProcedure, ""},
		{"¿Cómo pido un portátil nuevo?", ExpectProcedure, ""},
		{"dropped my phone in the sea, what's the first thing I have to do?", ExpectProcedure, ""},
		{"can I expense a second monitor?", ExpectYesNo, ""},
		{"¿Puedo ceder días de vacaciones?", ExpectYesNo, ""},
		{"where is the Madrid office?", ExpectPlace, ""},
		{"What does ERR_4402 mean?", ExpectFact, ""},
		{"feria de agronegocios", ExpectFact, ""},
	}
	for _, c := range cases {
		got := DetectExpect(c.question)
		if got.Kind != c.want || (c.unit != "" && got.Unit != c.unit) {
			t.Errorf("DetectExpect(%q) = %+v, want %s (unit %q)", c.question, got, c.want, c.unit)
		}
	}
}

func TestExpectSatisfies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		question, text string
		kind, unit     bool
	}{
		{"how many days off do I get?", "You get 23 días laborables.", true, true},
		{"¿cuántos días de licencia tengo?", "Los días no disfrutados antes del 31 de marzo se pierden.", true, false},
		{"how long is the leave?", "Leave lasts 2 weeks.", true, true},
		{"cuanto cuesta al año el plan?", "El plan cuesta 1.200 € al año.", true, true},
		{"how many days off do I get?", "No one is expected to answer on days off.", false, false},
		{"how many days off do I get?", "Ask your manager about it.", false, false},
		{"how much does it cost?", "The price is USD 5.35 per pound.", true, true},
		{"when is payday?", "Salaries are paid on the last Friday of each month.", true, false},
		{"what email do I write to?", "Write to personas@cafetera-andina.example.", true, false},
		{"which tool do we use?", "We track time in Workday.", true, false},
		{"which tool do we use?", "we track time in the portal.", false, false},
		{"who approves it?", "An engineering manager approves it.", true, false},
	}
	for _, c := range cases {
		kind, unit := DetectExpect(c.question).satisfies(c.text, nil)
		if kind != c.kind || unit != c.unit {
			t.Errorf("%q on %q: kind %v unit %v, want %v %v", c.question, c.text, kind, unit, c.kind, c.unit)
		}
	}
}

func TestSupportIsLowWhenNoPassageHoldsTheNumberAsked(t *testing.T) {
	t.Parallel()
	sources := []Source{{N: 1, Hit: Hit{Lang: "en", Content: "Ondaria also lets you use your leave for moving house or jury duty. Talk to your manager."}}}
	q := "how many days of moving leave do we get?"
	asked := Support(ComposeRequest{Question: q, Lang: "en", Sources: sources})
	answered := Support(ComposeRequest{Question: q, Lang: "en",
		Sources: []Source{{N: 1, Hit: Hit{Lang: "en", Content: "Staff get 2 days of paid moving leave."}}}})
	if asked.Score >= answered.Score/2 {
		t.Errorf("support without a number %.2f is not well below support with one %.2f", asked.Score, answered.Score)
	}
}

func TestSupportReportsMissingWords(t *testing.T) {
	t.Parallel()
	rep := Support(ComposeRequest{Question: "what day of the month is payday in Uruguay?", Lang: "en",
		Sources: []Source{{N: 1, Hit: Hit{Lang: "en", Section: "Uruguay", Content: "Staff in Uruguay accrue 20 days per year."}}}})
	if strings.Join(rep.Missing, " ") != "month payday" {
		t.Errorf("missing %q, want [month payday]", rep.Missing)
	}
}

// Quantities written as words, compounds included, hold the quantity and its unit.
func TestNumberWordsAreQuantities(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		question, text string
	}{
		{"¿cuántos días de vacaciones tenemos?", "Las personas trabajadoras disfrutarán de veinticuatro días laborables de vacaciones."},
		{"¿cuántas semanas dura el permiso?", "La suspensión tendrá una duración de diecinueve semanas."},
		{"how many days of leave?", "Staff get twenty-four working days of leave."},
		{"what percentage is paid?", "The company pays eighty per cent of the salary."},
		{"¿qué porcentaje se paga?", "Se abona el setenta y cinco por ciento del salario."},
	} {
		e := DetectExpect(c.question)
		kind, unit := e.satisfies(c.text, nil)
		if !kind || (e.Unit != "" && !unit) {
			t.Errorf("%q (%+v) over %q: kind %v unit %v, want both", c.question, e, c.text, kind, unit)
		}
	}
}
