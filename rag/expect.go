package rag

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citahq/cita/rag/lang"
)

// ExpectKind is the kind of answer a question asks for.
type ExpectKind string

// The kinds of answer DetectExpect tells apart.
const (
	ExpectFact      ExpectKind = "fact"      // anything: a definition, a rule, a description
	ExpectQuantity  ExpectKind = "quantity"  // how many, how much, how long, a limit, a price, an age
	ExpectDate      ExpectKind = "date"      // when, what day
	ExpectWho       ExpectKind = "who"       // a person, a role, a team
	ExpectTool      ExpectKind = "tool"      // which tool, app or system
	ExpectContact   ExpectKind = "contact"   // an e-mail address, a channel, a phone number
	ExpectPlace     ExpectKind = "place"     // where
	ExpectProcedure ExpectKind = "procedure" // how do I, what should I do, steps
	ExpectYesNo     ExpectKind = "yes_no"    // can I, do I have to, is it allowed
)

// Expect is what a question asks for: a kind, and for quantities the unit it names ("day",
// "hour", "money", "age", ...; empty when none).
type Expect struct {
	Kind ExpectKind
	Unit string
}

// cue is a phrase (folded: lower case, no accents) that signals a kind of answer.
type cue struct {
	kind   ExpectKind
	phrase string
	start  bool // the phrase counts only at the start of a clause
}

// cues are checked in order; the first that matches decides. Quantities come first ("how long
// before…" asks for a duration, not a procedure), clause-initial "when" last ("what's the cap when
// traveling?" asks for an amount).
var cues = []cue{
	{ExpectContact, "what email", false}, {ExpectContact, "which email", false}, {ExpectContact, "email address", false},
	{ExpectContact, "which channel", false}, {ExpectContact, "what channel", false}, {ExpectContact, "slack channel", false},
	{ExpectContact, "phone number", false}, {ExpectContact, "what number do i call", false},
	{ExpectContact, "who do i call", false}, {ExpectContact, "who do i email", false}, {ExpectContact, "who should i email", false},
	{ExpectContact, "who should i call", false}, {ExpectContact, "what number", false}, {ExpectContact, "a quien llamo", false},
	{ExpectContact, "a quien escribo", false}, {ExpectContact, "a que numero", false},
	{ExpectContact, "que correo", false}, {ExpectContact, "a que correo", false}, {ExpectContact, "que canal", false},
	{ExpectContact, "que telefono", false}, {ExpectContact, "numero de telefono", false},
	{ExpectQuantity, "how many", false}, {ExpectQuantity, "how much", false}, {ExpectQuantity, "how long", false},
	{ExpectQuantity, "how old", false}, {ExpectQuantity, "how often", false}, {ExpectQuantity, "how far in advance", false},
	{ExpectQuantity, "how soon", false}, {ExpectQuantity, "how early", false}, {ExpectQuantity, "how big", false},
	{ExpectQuantity, "what age", false}, {ExpectQuantity, "age limit", false}, {ExpectQuantity, "up to what age", false},
	{ExpectQuantity, "what percentage", false}, {ExpectQuantity, "what percent", false},
	{ExpectQuantity, "limit", false}, {ExpectQuantity, "cap", false}, {ExpectQuantity, "maximum", false},
	{ExpectQuantity, "max", false}, {ExpectQuantity, "minimum", false}, {ExpectQuantity, "min", false},
	{ExpectQuantity, "price", false}, {ExpectQuantity, "cost", false}, {ExpectQuantity, "budget", false},
	{ExpectQuantity, "rate", false}, {ExpectQuantity, "per diem", false}, {ExpectQuantity, "threshold", false},
	{ExpectQuantity, "cuant*", false}, {ExpectQuantity, "que edad", false}, {ExpectQuantity, "hasta que edad", false},
	{ExpectQuantity, "limite", false}, {ExpectQuantity, "maximo", false}, {ExpectQuantity, "minimo", false},
	{ExpectQuantity, "precio", false}, {ExpectQuantity, "cuesta", false}, {ExpectQuantity, "tarifa", false},
	{ExpectQuantity, "porcentaje", false}, {ExpectQuantity, "presupuesto", false}, {ExpectQuantity, "que plazo", false},
	{ExpectQuantity, "con que antelacion", false}, {ExpectQuantity, "salario", false}, {ExpectQuantity, "salary", false},
	{ExpectTool, "what tool", false}, {ExpectTool, "which tool", false}, {ExpectTool, "what app", false},
	{ExpectTool, "which app", false}, {ExpectTool, "what system", false}, {ExpectTool, "which system", false},
	{ExpectTool, "what platform", false}, {ExpectTool, "which platform", false}, {ExpectTool, "what software", false},
	{ExpectTool, "which software", false}, {ExpectTool, "what service", false}, {ExpectTool, "which service", false},
	{ExpectTool, "what website", false}, {ExpectTool, "which website", false}, {ExpectTool, "what portal", false},
	{ExpectTool, "que herramienta", false}, {ExpectTool, "que aplicacion", false}, {ExpectTool, "que sistema", false},
	{ExpectTool, "que plataforma", false}, {ExpectTool, "que programa", false}, {ExpectTool, "que portal", false},
	{ExpectTool, "que web", false},
	{ExpectWho, "who", true}, {ExpectWho, "whom", true}, {ExpectWho, "whose", true}, {ExpectWho, "which team", false},
	{ExpectWho, "what team", false}, {ExpectWho, "which person", false}, {ExpectWho, "which department", false},
	{ExpectWho, "what department", false}, {ExpectWho, "quien", false}, {ExpectWho, "que equipo", false},
	{ExpectWho, "que persona", false}, {ExpectWho, "que departamento", false}, {ExpectWho, "que area", false},
	{ExpectDate, "what day", false}, {ExpectDate, "which day", false}, {ExpectDate, "what date", false},
	{ExpectDate, "what time", false}, {ExpectDate, "deadline", false}, {ExpectDate, "by when", false},
	{ExpectDate, "que dia", false}, {ExpectDate, "que fecha", false}, {ExpectDate, "a que hora", false},
	{ExpectDate, "fecha limite", false}, {ExpectDate, "cuando", true}, {ExpectDate, "when", true},
	{ExpectPlace, "where is", true}, {ExpectPlace, "where are", true}, {ExpectPlace, "in which city", false},
	{ExpectPlace, "which office", false}, {ExpectPlace, "donde esta", false}, {ExpectPlace, "en que ciudad", false},
	{ExpectPlace, "en que oficina", false},
	{ExpectProcedure, "how do", true}, {ExpectProcedure, "how can", true}, {ExpectProcedure, "how to", true},
	{ExpectProcedure, "how should", true}, {ExpectProcedure, "what should i do", false}, {ExpectProcedure, "what do i do", false},
	{ExpectProcedure, "what do i have to do", false}, {ExpectProcedure, "what steps", false}, {ExpectProcedure, "the process", false},
	{ExpectProcedure, "where do i start", false}, {ExpectProcedure, "first thing", false}, {ExpectProcedure, "what do i need to", false},
	{ExpectProcedure, "como", true}, {ExpectProcedure, "que debo hacer", false}, {ExpectProcedure, "que tengo que hacer", false},
	{ExpectProcedure, "que hago", false}, {ExpectProcedure, "pasos", false}, {ExpectProcedure, "lo primero", false},
	{ExpectProcedure, "el proceso", false}, {ExpectProcedure, "where do i", true},
	{ExpectPlace, "where", true}, {ExpectPlace, "donde", true},
}

// yesNoStarts open a question answered by yes or no.
var yesNoStarts = []string{
	"can ", "could ", "do ", "does ", "is ", "are ", "am ", "should ", "may ", "will ", "must ", "did ", "have ", "has ",
	"puedo ", "puede ", "pueden ", "se puede", "tengo que", "debo ", "es obligatorio", "hay que", "es posible", "se pueden",
	"me ", "nos ", "existe", "esta permitido", "son ", "es ",
}

// quantityUnits maps a unit word of a question to the unit it names.
var quantityUnits = map[string]string{
	"day": "day", "days": "day", "dia": "day", "dias": "day",
	"week": "week", "weeks": "week", "semana": "week", "semanas": "week",
	"month": "month", "months": "month", "mes": "month", "meses": "month",
	"year": "year", "years": "year", "yearly": "year", "ano": "year", "anos": "year",
	"hour": "hour", "hours": "hour", "hrs": "hour", "hora": "hour", "horas": "hour",
	"minute": "minute", "minutes": "minute", "minuto": "minute", "minutos": "minute",
	"old": "age", "age": "age", "edad": "age", "aged": "age",
	"percentage": "percent", "percent": "percent", "porcentaje": "percent",
	"price": "money", "cost": "money", "costs": "money", "budget": "money", "cap": "money",
	"precio": "money", "cuesta": "money", "presupuesto": "money", "pay": "money", "paid": "money",
	"dollars": "money", "euros": "money", "usd": "money", "eur": "money", "salario": "money", "salary": "money",
	"spend": "money", "gastar": "money", "reimbursement": "money", "allowance": "money",
}

// DetectExpect tells what kind of answer a Spanish or English question asks for.
func DetectExpect(question string) Expect {
	q := " " + lang.Fold(question) + " "
	clauses := clauseStarts(q)
	for _, c := range cues {
		phrase, prefix := strings.CutSuffix(c.phrase, "*")
		if !containsPhrase(q, phrase, prefix) {
			continue
		}
		if c.start && !startsAClause(q, phrase, clauses) {
			continue
		}
		e := Expect{Kind: c.kind}
		if c.kind == ExpectQuantity {
			e.Unit = quantityUnit(q)
			if e.Unit == "" && durationCue(q) {
				e.Unit = "time"
			}
			if costCue(q) && e.Unit != "percent" {
				e.Unit = "money" // "cuánto cuesta al año" asks for an amount, per year
			}
		}
		return e
	}
	for _, s := range yesNoStarts {
		for _, at := range clauses {
			if strings.HasPrefix(q[at:], s) {
				return Expect{Kind: ExpectYesNo}
			}
		}
	}
	return Expect{Kind: ExpectFact}
}

// durationCue reports whether a quantity question asks for a duration ("how long", "cuánto
// dura", "con cuánta antelación").
func durationCue(q string) bool {
	for _, p := range []string{"how long", "how soon", "how early", "how far in advance", "how much time", "how much notice",
		"cuanto dura", "cuanto tiempo", "cuanta antelacion", "que plazo", "cuanto tarda", "cuantos dias", "cuantas semanas"} {
		if strings.Contains(q, p) {
			return true
		}
	}
	return false
}

// costCue reports whether a quantity question asks for an amount of money.
func costCue(q string) bool {
	for _, p := range []string{"cost", "price", "precio", "cuesta", "cuestan", "pay ", "paid", "pagan", "paga ", "salary", "salario",
		"buy ", "to buy", "comprar", "compro", // "can I buy it? for how much" asks for a price
		"budget", "presupuesto", "spend", "gastar", "reimburse", "reembols", "fee", "tarifa", "allowance",
		// a limit per night is a room rate
		"per night", "a night", "nightly", "por noche", "la noche"} {
		if strings.Contains(q, p) {
			return true
		}
	}
	return false
}

// containsPhrase reports whether q holds phrase as whole words (as a word prefix when prefix).
func containsPhrase(q, phrase string, prefix bool) bool {
	for off := 0; ; {
		i := strings.Index(q[off:], phrase)
		if i < 0 {
			return false
		}
		at := off + i
		r, _ := utf8.DecodeLastRuneInString(q[:at])
		before := at == 0 || !(unicode.IsLetter(r) || unicode.IsDigit(r))
		after := prefix || wordEnds(q, at+len(phrase))
		if before && after {
			return true
		}
		off = at + 1
	}
}

// quantityUnit finds the unit a quantity question names: "how many days" -> "day".
func quantityUnit(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) })
	// An age is what "how old" and "age limit" ask, whatever years the question mentions; a time
	// unit is more telling than a money hint ("how much time", "per day").
	rank := map[string]int{"age": 3, "money": 1}
	unit := ""
	for _, w := range words {
		u, ok := quantityUnits[w]
		if !ok {
			continue
		}
		r, ok := rank[u]
		if !ok {
			r = 2
		}
		if unit == "" || r > rankOf(rank, unit) {
			unit = u
		}
	}
	return unit
}

func rankOf(rank map[string]int, unit string) int {
	if r, ok := rank[unit]; ok {
		return r
	}
	return 2
}

// clauseStarts returns the byte offsets where a clause starts in q: after the leading space, and
// after ¿ ¡ : , ; . ? ! - and the words "and", "but", "y", "pero", "so", "if", "si".
func clauseStarts(q string) []int {
	starts := []int{1}
	for i, r := range q {
		if strings.ContainsRune("¿¡:,;.?!-(", r) {
			j := i + len(string(r))
			for j < len(q) && q[j] == ' ' {
				j++
			}
			starts = append(starts, j)
		}
	}
	for _, w := range []string{" and ", " but ", " so ", " y ", " pero ", " o ", " or "} {
		for off := 0; ; {
			k := strings.Index(q[off:], w)
			if k < 0 {
				break
			}
			starts = append(starts, off+k+len(w))
			off += k + 1
		}
	}
	return starts
}

// startsAClause reports whether phrase occurs at a clause start, allowing a filler word before
// it ("and when…", "ok so who…", "y a quién…").
func startsAClause(q, phrase string, starts []int) bool {
	for _, at := range starts {
		rest := q[at:]
		if strings.HasPrefix(rest, phrase) && wordEnds(rest, len(phrase)) {
			return true
		}
		for _, filler := range []string{"a ", "en ", "de ", "para ", "con ", "hey ", "ok ", "so ", "and ", "but ", "y ", "pero ", "entonces ", "to ", "for ", "from ", "until ", "till ", "since ", "hasta ", "desde "} {
			if strings.HasPrefix(rest, filler+phrase) && wordEnds(rest, len(filler)+len(phrase)) {
				return true
			}
		}
	}
	return false
}

func wordEnds(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	r := rune(s[i])
	return !unicode.IsLetter(r)
}

var (
	digitRe      = regexp.MustCompile(`\d`)
	numberWordRe = regexp.MustCompile(`(?i)\b(` + numberWordAlts + `|thousand|twice|double|single|mil|mitad|doble|unlimited|ilimitad[oa]s?)\b|no (set )?limit|sin l[ií]mite`)
	monthRe      = regexp.MustCompile(`(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|monday|tuesday|wednesday|thursday|friday|saturday|sunday|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|weekly|monthly|annually|quarterly|yearly|daily|every|each|cada|mensual|anual|semanal|trimestral|diario)\b`)
	emailRe      = regexp.MustCompile(`[\w.+-]+@[\w-]+(\.[\w-]+)+`)
	channelRe    = regexp.MustCompile(`(^|\s)#[\w-]{2,}`)
	phoneRe      = regexp.MustCompile(`\+?\d[\d\s().-]{6,}\d`)
	urlRe        = regexp.MustCompile(`https?://\S+`)
	roleRe       = regexp.MustCompile(`(?i)\b(team|teams|manager|managers|lead|director|directora|officer|head|vp|analyst|administrator|admin|admins|owner|specialist|engineer|department|committee|board|coordinator|representative|responsable|equipo|gerente|jefe|jefa|[aá]rea|comit[eé]|junta|departamento|coordinador|coordinadora|analista|administrador|recursos humanos)\b`)
	modalRe      = regexp.MustCompile(`(?i)\b(must|may|can|cannot|can't|not|no|only|required|require|requires|prohibited|allowed|permitted|denied|eligible|never|always|should|need|needs|debe|deben|puede|pueden|solo|s[oó]lo|obligatori[oa]|prohibid[oa]|permitid[oa]|nunca|siempre|necesita|requiere|no se)\b`)
	// actionRe finds an instruction: an imperative at the start ("Open a ticket"), after "please"
	// or "first,", or "you (must|should|can|need to) <verb>".
	actionRe = regexp.MustCompile(`(?i)(^|please |first,? |then,? |^\d+\. |you (must|should|can|need to|have to) |debes |tienes que |hay que |por favor )(submit|create|open|request|fill|go|click|select|email|contact|ask|send|use|follow|file|complete|book|register|log|enter|reach|post|visit|schedule|call|check|add|raise|report|sign|run|merge|tag|make|set|write|tell|notify|return|purchase|buy|pack|env[ií]a|solicita|rellena|abre|crea|registra|escribe|llama|usa|sigue|pide|reserva|completa|consulta|avisa|entra|accede|abrir|crear|enviar|solicitar|pedir|registrar|escribir|llamar|usar|seguir|reservar|completar|consultar|avisar)\b`)
)

// Quantities as documents write them: a number (digits, or a word) next to what it counts.
const (
	// numberWordAlts are the number words documents write quantities with, English and Spanish,
	// compounds included ("twenty-four", "veinticuatro", "diecinueve", "doscientos").
	numberWordAlts = `one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|` +
		`eighteen|nineteen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|` +
		`hundred|half|uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|dieci[a-zñéó]+|` +
		`veinte|veinti[a-zñéúó]+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|cien|ciento|(?:dos|tres|cuatro|quinientos|seis|sete|ocho|nove)cient[oa]s|quinient[oa]s`
	numberPat   = `(?:\d[\d.,]*|\b(?:` + numberWordAlts + `|a|an|twice|un|medio|media)\b)`
	qualifier   = `(?:(?:business|working|work|calendar|consecutive|natural|full|paid|extra|additional|h[aá]biles|laborables|naturales|calendario|adicionales|pagad[oa]s)\s+)?`
	timeUnitPat = `(?:days?|weeks?|months?|years?|hours?|hrs?|h|minutes?|mins?|d[ií]as?|semanas?|mes(?:es)?|a[ñn]os?|horas?|minutos?)`
)

// nextTo matches a number followed, within two words, by one of the unit words: "15 días
// hábiles", "4 hrs", "20 working days", "2 weeks".
func nextTo(units string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + numberPat + `\s*(?:\S+\s+){0,2}?` + qualifier + `(?:` + units + `)\b`)
}

// quantityRe holds, per unit a question names, what answers it: a number next to that unit.
// "time" is any duration ("how long", "cuánto dura").
var quantityRe = map[string]*regexp.Regexp{
	"time":    nextTo(timeUnitPat),
	"day":     nextTo(`days?|d[ií]as?`),
	"week":    nextTo(`weeks?|semanas?`),
	"month":   nextTo(`months?|mes(?:es)?`),
	"year":    nextTo(`years?|a[ñn]os?`),
	"hour":    nextTo(`hours?|hrs?|h|horas?`),
	"minute":  nextTo(`minutes?|mins?|minutos?`),
	"age":     regexp.MustCompile(`(?i)(\b(age|aged|edad)\b\D{0,25}\d+|\d+\s*(years?\s+old|a[ñn]os)|\b(under|menores de|hasta los)\s+\d+)`),
	"percent": regexp.MustCompile(`(?i)(\d[\d.,]*|\b(?:` + numberWordAlts + `)(?:\s+y\s+(?:uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve))?)\s*(%|percent\b|per cent\b|por ciento\b)`),
	"money":   regexp.MustCompile(`(?i)([$€£¥]\s*\d|\d[\d.,]*\s*([$€£¥]|\b(usd|eur|cop|gbp|dollars?|euros?|pesos?)\b)|\b(usd|eur|cop|gbp)\s*\d)`),
}

// timeUnits are the units a duration can be given in: a question about days is answered by
// "2 weeks" too.
var timeUnits = map[string]bool{"time": true, "day": true, "week": true, "month": true, "year": true, "hour": true, "minute": true}

// satisfies reports whether text holds the kind of answer e asks for, and whether it also holds
// the quantity's unit. common names (lower-cased) do not count as names.
func (e Expect) satisfies(text string, common map[string]bool) (kind, unit bool) {
	switch e.Kind {
	case ExpectQuantity:
		kind = digitRe.MatchString(text) || numberWordRe.MatchString(noOne.Replace(text))
		if re, ok := quantityRe[e.Unit]; ok && kind {
			// Only a number next to what the question counts holds the unit: "31 de marzo"
			// does not say how many days.
			unit = re.MatchString(text) || (timeUnits[e.Unit] && quantityRe["time"].MatchString(text))
		}
		return kind, unit
	case ExpectDate:
		return digitRe.MatchString(text) || monthRe.MatchString(text), false
	case ExpectContact:
		return emailRe.MatchString(text) || channelRe.MatchString(text) || phoneRe.MatchString(text) || urlRe.MatchString(text), false
	case ExpectWho:
		return roleRe.MatchString(text) || emailRe.MatchString(text) || hasProperName(text, common), false
	case ExpectTool, ExpectPlace:
		return hasProperName(text, common) || strings.Contains(text, "`"), false
	case ExpectProcedure:
		return actionRe.MatchString(strings.TrimSpace(text)), false
	case ExpectYesNo:
		return modalRe.MatchString(text), false
	}
	return true, false
}

// crisp reports whether an answer of this kind is recognisable in text, so that a passage lacking
// it does not answer the question (a quantity needs a number; a rule can be phrased any way).
// names reports whether word names the unit of the quantity the question asks for ("days" in
// "how many days of leave"): the answer's number carries it, the question is not about it.
func (e Expect) names(word string) bool {
	return e.Kind == ExpectQuantity && e.Unit != "" && quantityUnits[lang.Fold(word)] == e.Unit
}

func (e Expect) crisp() bool {
	switch e.Kind {
	case ExpectQuantity, ExpectDate, ExpectContact:
		return true
	}
	return false
}

// nameTrim is what surrounds a word that may be a name.
const nameTrim = "\"'()[]*_`“”«»,.;:!?¿¡"

// noOne hides "no one" and "anyone" from the number words.
var noOne = strings.NewReplacer("no one", "nobody", "No one", "Nobody", "any one", "any")

// nameWords are text's capitalised words of two letters or more that do not open a sentence
// ("ask People Connect", "use Workday", "in Tokyo"), acronyms included, without the punctuation
// around them: the one rule of what may be a name, for answers ("who", "which tool") and for
// questions (a place the sources never mention).
func nameWords(text string) []string {
	var out []string
	words := strings.Fields(text)
	for i, w := range words {
		name := strings.Trim(w, nameTrim)
		if r := []rune(name); len(r) < 2 || !unicode.IsUpper(r[0]) || i == 0 {
			continue
		}
		if prev := words[i-1]; strings.HasSuffix(prev, ".") || strings.HasSuffix(prev, ":") || strings.HasSuffix(prev, "?") || strings.HasSuffix(prev, "!") {
			continue
		}
		out = append(out, name)
	}
	return out
}

// hasProperName reports whether text has a name (see nameWords) other than the common ones.
func hasProperName(text string, common map[string]bool) bool {
	for _, w := range nameWords(text) {
		if !common[strings.ToLower(w)] {
			return true
		}
	}
	return false
}
