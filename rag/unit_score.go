package rag

import (
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// scoredUnit is an answer unit of one source with how well it answers the question.
type scoredUnit struct {
	answerUnit
	source   int     // index into the sources
	score    float64 // final score
	coverage float64 // weighted share of the question found in the unit, its context and its section
	kindOK   bool    // the unit holds the kind of answer asked for
	unitOK   bool    // and the unit of the quantity asked for
	matched  []string
	cell     bool // a question term matched one of the row's values
	// local is the weighted share of the question's subject that the unit says where it stands:
	// in its text, the FAQ question or lead it answers, its section heading or the sentence
	// before; not the document's title or parents. The subject is the question's words the
	// sources hold somewhere, less the unit of the quantity asked for ("days" is what a
	// number answers, not what the question is about). 1 when the question has no such word.
	local float64
	// whole: the unit's own text holds every word of the question the sources hold (a keyword
	// query answered in one sentence).
	whole bool
	// key is the question's most telling word about its subject (the heaviest after rarity:
	// a word no source holds weighs most); keyLocal says the unit holds it where it stands (or
	// a bridge of it), keyKnown that some source holds it at all.
	key                string
	keyLocal, keyKnown bool
}

// sourceUnits are one source's units with the bags they are matched with.
type sourceUnits struct {
	units   []answerUnit
	text    []stemBag // per unit, in the source's language
	list    []stemBag // per unit: its text and, for a lead sentence, its list's items
	context []stemBag // per unit: its FAQ question or lead sentence
	prev    []stemBag // per unit: the sentence before it in its paragraph
	section stemBag   // the deepest section heading
	faq     bool      // the deepest section heading is a question: its units answer it
	doc     stemBag   // the title and the parent sections
	// whole is everything the source says (its title, its section path and its whole text):
	// the relevance guard's "does any source say this word" (Support).
	whole stemBag
}

func prepareSources(sources []Source, langs []string) [][]sourceUnits {
	units := make([][]answerUnit, len(sources))
	for si, s := range sources {
		units[si] = answerUnitsOf(s.Content)
	}
	// One preparation per stemming language: a source is matched in its own language, except
	// that the text of language-neutral documents follows each variant's language. A text is
	// stemmed once per language it is stemmed in (a unit's text is the next unit's previous
	// sentence, a list's items are units of their own, and a Spanish or English source is
	// stemmed in its own language whatever the preparation's). The bags are shared: nothing
	// changes them.
	bags := map[string]stemBag{}
	out := make([][]sourceUnits, len(langs))
	for li, ql := range langs {
		out[li] = make([]sourceUnits, len(sources))
		for si, s := range sources {
			tl := textLang(s.Lang, ql)
			bag := func(text string) stemBag {
				key := tl + "\x00" + text
				b, ok := bags[key]
				if !ok {
					b = bagOf(text, tl)
					bags[key] = b
				}
				return b
			}
			su := sourceUnits{units: units[si]}
			parts := strings.Split(s.Section, " > ")
			su.section = bag(parts[len(parts)-1])
			su.faq = isQuestionLine(parts[len(parts)-1])
			su.doc = bag(s.Title + " " + strings.Join(parts[:len(parts)-1], " "))
			su.whole = bag(s.Title + " " + s.Section + "\n" + s.Content)
			for _, u := range su.units {
				text := bag(u.text)
				list := text
				if len(u.items) > 0 {
					list = maps.Clone(text)
					for _, it := range u.items {
						maps.Copy(list, bag(it.text))
					}
				}
				su.text = append(su.text, text)
				su.list = append(su.list, list)
				su.context = append(su.context, bag(u.context))
				su.prev = append(su.prev, bag(u.prev))
			}
			out[li][si] = su
		}
	}
	return out
}

// preparedSources are the sources prepared once for each language the question's variants are
// stemmed in.
type preparedSources struct {
	byLang    [][]sourceUnits
	langIndex map[string]int // a variant's language -> its index in byLang
}

// prepareFor prepares sources for every language of variants.
func prepareFor(variants []queryVariant, sources []Source) preparedSources {
	langs := []string{}
	langIndex := map[string]int{}
	for _, v := range variants {
		if _, ok := langIndex[v.lang]; !ok {
			langIndex[v.lang] = len(langs)
			langs = append(langs, v.lang)
		}
	}
	return preparedSources{byLang: prepareSources(sources, langs), langIndex: langIndex}
}

// forVariant returns the sources prepared in v's language.
func (p preparedSources) forVariant(v queryVariant) []sourceUnits {
	return p.byLang[p.langIndex[v.lang]]
}

// scoreUnits scores every unit of every source for the question and its variants, best first.
func scoreUnits(expect Expect, variants []queryVariant, sources []Source, p preparedSources) []scoredUnit {
	prepared := p.byLang
	common := commonNames(prepared[0], variants)
	rarity := make([]map[string]float64, len(variants))
	for i, v := range variants {
		rarity[i] = rarityOf(p.forVariant(v), v)
		p.knownElsewhere(v, rarity[i])
	}
	var out []scoredUnit
	for si := range sources {
		for ui := range prepared[0][si].units {
			var best scoredUnit
			holds := answerCheck{expect: expect, common: common}
			for vi, v := range variants {
				su := p.forVariant(v)[si]
				s := scoreUnit(expect, v, rarity[vi], &holds, su, ui)
				s.source = si
				if s.score > best.score || best.text == "" {
					best = s
				}
			}
			best.score /= 1 + rankPrior*float64(si) + unitOrderPrior*float64(ui)
			out = append(out, best)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// commonNames returns the lower-cased names (see nameWords) that name nothing in particular here:
// those of the question, and those in a quarter or more of the sources' units (the
// organisation's own name). A "who" or "which tool" question is not answered by them.
func commonNames(prepared []sourceUnits, variants []queryVariant) map[string]bool {
	out := map[string]bool{}
	for _, v := range variants {
		for _, w := range v.words {
			out[w] = true
		}
	}
	count := map[string]int{}
	n := 0
	for _, su := range prepared {
		for _, u := range su.units {
			n++
			seen := map[string]bool{}
			for _, w := range nameWords(u.text) {
				if !seen[w] {
					seen[w] = true
					count[strings.ToLower(w)]++
				}
			}
		}
	}
	for w, c := range count {
		if c >= commonNameMinUnits && float64(c) >= commonNameShare*float64(n) {
			out[w] = true
		}
	}
	return out
}

// rarityOf returns, for each of the variant's stems, how rare it is among the units of these
// sources: 1 when no unit has it, falling towards everywhereRarity when every unit has it. A word every
// passage shares ("laptop" among laptop pages) tells little about which passage answers.
//
// A word no source holds anywhere (text, headings, title) weighs absentWeight: the passages are
// about something else when they never say what the question is about ("paternity").
func rarityOf(prepared []sourceUnits, v queryVariant) map[string]float64 {
	n := 0
	df := map[string]int{}
	seen := stemBag{}
	for _, su := range prepared {
		for _, st := range v.stems {
			if v.in(su.section, st) > 0 || v.in(su.doc, st) > 0 {
				seen[st] = true
			}
		}
		for ui := range su.units {
			n++
			for _, st := range v.stems {
				if v.in(su.text[ui], st) > 0 {
					df[st]++
				}
				if v.in(su.context[ui], st) > 0 || v.in(su.prev[ui], st) > 0 || v.in(su.list[ui], st) > 0 {
					seen[st] = true
				}
			}
		}
	}
	out := make(map[string]float64, len(v.stems))
	for _, st := range v.stems {
		switch {
		case df[st] == 0 && !seen[st]:
			out[st] = absentWeight
		case n == 0:
			out[st] = 1
		default:
			out[st] = everywhereRarity + (1-everywhereRarity)*(1-float64(df[st])/float64(n))
		}
	}
	return out
}

// knownElsewhere lifts from absentWeight the stems of v that a source holds only in another
// language, through one of their renderings ("parking" where the only page says "parqueadero"):
// the sources do talk about it, so it is what the question is about (rare: it names the
// passage that answers), not a word no passage mentions.
// elsewhereRarity is the rarity of a word only a source in the other language says: as rare as
// a word no unit of this language has (1), marked apart by the least bit so the key can tell it.
const elsewhereRarity = 1 - 1e-9

func (p preparedSources) knownElsewhere(v queryVariant, rarity map[string]float64) {
	other, ok := p.langIndex[OtherLang(v.lang)]
	if !ok || other == p.langIndex[v.lang] {
		return
	}
	for st, r := range rarity {
		if r != absentWeight || len(v.foreign[st]) == 0 {
			continue
		}
		for _, su := range p.byLang[other] {
			if v.inForeign(su.whole, st) > 0 {
				rarity[st] = elsewhereRarity
				break
			}
		}
	}
}

// numberInRange reports whether tok is a number that a range of text holds ("2" in "1-3 years").
func numberInRange(tok, text string) bool {
	n, err := strconv.ParseFloat(strings.ReplaceAll(tok, ",", "."), 64)
	return err == nil && inRange(text, []float64{n})
}

// How a unit's coverage of the question becomes its score. The factors were set by hand on the
// dev and validation sets (docs/answer-quality.md, "Answering quality"); each says how much one piece of
// evidence should move a unit against another that covers the question as well.
const (
	// kindAndUnitBoost: the unit holds the kind of answer asked for and, for a quantity, its
	// unit ("25 days" for "how many days"): the clearest sign that it is the answer.
	kindAndUnitBoost = 1.3
	// otherUnitFactor: a number, but not of what the question counts ("31 March" for "how many
	// days").
	otherUnitFactor = 0.6
	// noCrispKindFactor: no number, date or contact where the question asks for one; such a
	// unit almost never answers, whatever its words.
	noCrispKindFactor = 0.3
	// noModalFactor: a yes/no question answered by a unit with no "can", "must", "may"...; it
	// may still answer, in other words.
	noModalFactor = 0.8
	// noKindFactor: no name for "who", no steps for "how do I".
	noKindFactor = 0.6
	// cellBoost: a weighty question word is one of a table row's values (the row is about it).
	cellBoost = 1.3
	// headerBoost: the question names a column (its header holds a word of the question) whose
	// value in the row is the kind of answer asked for: "días al año" picks the row's "Días por
	// año de servicio: 15 días hábiles", not a sentence elsewhere that mentions days.
	headerBoost = 1.3
	// rangeBoost: a number the question names falls in a range the unit gives ("2" in "1-3
	// years").
	rangeBoost = 1.2
	// stepsBoost: a lead sentence with its steps answers "how do I" better than one step.
	stepsBoost = 1.3
	// longUnitWords and longUnitSlope: a unit of more content words says many things; its
	// score shrinks by one more share for every longUnitSlope words beyond.
	longUnitWords = 30
	longUnitSlope = 40.0
	// fragmentWords and fragmentFactor: a unit of fewer content words (not a table row) is a
	// fragment, which rarely answers.
	fragmentWords  = 3
	fragmentFactor = 0.6
	// minContextCoverage is how much of the question's known words a unit that holds none of
	// them itself must have in what it answers (FAQ question, lead, heading, previous sentence);
	// minContextCoverageWithKind when it holds the specific kind of answer asked for.
	minContextCoverage         = 0.45
	minContextCoverageWithKind = 0.3
	// rankPrior and unitOrderPrior: retrieval's order of the sources and a unit's place in its
	// document break near ties; a source ten ranks down needs 1.8× the score.
	rankPrior      = 0.08
	unitOrderPrior = 0.002
	// everywhereRarity is the rarity of a word every unit holds (1 for a word in none).
	everywhereRarity = 0.3
	// A capitalised word in commonNameShare of the units, and at least commonNameMinUnits of
	// them, is the organisation's own name or the like: it names no one in particular.
	commonNameShare    = 0.25
	commonNameMinUnits = 3
)

// absentWeight is the rarity of a question word no source holds anywhere (1 is a word the
// sources hold in no unit's text but in a heading or a title).
const absentWeight = 2.0

// Weights of where a question word is found: in the unit itself, in the FAQ question or lead
// sentence it answers, in its section heading, or only in the document's title and parents.
const (
	inTextWeight = 1.0
	inContext    = 0.7
	inSection    = 0.6
	inPrev       = 0.5
	inDoc        = 0.35
)

var rangeRe = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s*(?:-|–|to|a|hasta)\s*(\d+(?:[.,]\d+)?)`)

// answerCheck says once per unit whether it holds the kind of answer asked for (Expect.satisfies,
// a few regular expressions): every variant of the question scores the same unit.
type answerCheck struct {
	expect           Expect
	common           map[string]bool
	done, kind, unit bool
}

func (c *answerCheck) of(u answerUnit) (kind, unit bool) {
	if !c.done {
		c.kind, c.unit = c.expect.satisfies(u.text+" "+strings.Join(u.itemTexts(), " "), c.common)
		c.done = true
	}
	return c.kind, c.unit
}

func scoreUnit(expect Expect, v queryVariant, rarity map[string]float64, holds *answerCheck, su sourceUnits, ui int) scoredUnit {
	u := su.units[ui]
	s := scoredUnit{answerUnit: u}
	if u.implicit && expect.Kind != ExpectProcedure {
		return s // a bare list answers how to do something, as a whole
	}
	text := su.text[ui]
	if u.kind == unitLead && expect.Kind == ExpectProcedure {
		text = su.list[ui] // steps are matched with the sentence that leads them
	}
	section := inSection
	if su.faq {
		section = inContext // an FAQ heading is the question its section answers
	}
	prevWeight := inPrev
	if u.kind == unitSentence && refersBack(u.text) {
		prevWeight = inTextWeight // quoted together with the sentence it points back to
	}
	var got, total, inUnit, absent, subject, said, keyWeight float64
	s.whole = true
	for _, st := range v.stems {
		w := v.weight[st] * rarity[st]
		// A word only a source in the other language says (elsewhereRarity, knownElsewhere)
		// names the page that answers: it is the key before longer words every page says
		// ("parking" before "employees" where only "parqueadero" says it).
		kw := w
		if rarity[st] == elsewhereRarity {
			kw *= 2
		}
		isKey := rarity[st] != absentWeight && !expect.names(v.words[st]) && !light[v.words[st]] && kw > keyWeight
		if isKey {
			keyWeight, s.key, s.keyKnown, s.keyLocal = kw, v.words[st], true, false
		}
		total += w
		known := rarity[st] != absentWeight
		if !known {
			absent += w
		}
		isSubject := known && !expect.names(v.words[st])
		if isSubject {
			subject += w
		}
		local := true
		inText := v.in(text, st)
		if inText == 0 && numberInRange(v.words[st], u.text) {
			inText = 1
		}
		// Found through a bridge, a word counts at the bridge's weight, and says so.
		where := func(bag stemBag, f float64, note string) {
			if via := v.via(bag, st); via != "" {
				note += " (as " + via + ")"
			}
			s.matched = append(s.matched, v.words[st]+note)
		}
		switch {
		case inText > 0:
			got += inTextWeight * w * inText
			inUnit += w * inText
			where(text, inText, "")
		case v.in(su.context[ui], st) > 0:
			f := v.in(su.context[ui], st)
			got += inContext * w * f
			where(su.context[ui], f, " (context)")
		case v.in(su.section, st) > 0:
			f := v.in(su.section, st)
			got += section * w * f
			where(su.section, f, " (section)")
		case v.in(su.prev[ui], st) > 0:
			f := v.in(su.prev[ui], st)
			got += prevWeight * w * f
			where(su.prev[ui], f, " (previous sentence)")
		case v.in(su.doc, st) > 0:
			got += inDoc * w * v.in(su.doc, st)
			local = false
		default:
			local = false
		}
		if isSubject && local {
			said += w
		}
		if isKey {
			s.keyLocal = local
		}
		if inText == 0 {
			s.whole = false
		}
	}
	s.local = 1
	if subject > 0 {
		s.local = said / subject
	}
	if total == 0 {
		return s
	}
	s.coverage = got / total
	s.kindOK, s.unitOK = holds.of(u)
	// A unit must say something of the question itself, unless what it answers (an FAQ
	// question, a lead sentence, its heading, the sentence before) covers the question's words
	// the sources know well, or well enough when the unit holds the specific kind of answer
	// asked for ("It is set to 30 minutes." after the sentence about inactive sessions).
	if inUnit == 0 && total > absent {
		known := got / (total - absent)
		if known < minContextCoverage && !(expect.Kind != ExpectFact && s.kindOK && known >= minContextCoverageWithKind) {
			return s
		}
	}
	score := s.coverage
	switch {
	case s.kindOK && s.unitOK:
		score *= kindAndUnitBoost
	case s.kindOK && expect.Kind == ExpectQuantity && expect.Unit != "" && expect.Unit != "age":
		score *= otherUnitFactor
	case s.kindOK:
	case expect.crisp():
		score *= noCrispKindFactor
	case expect.Kind == ExpectYesNo:
		score *= noModalFactor
	default:
		score *= noKindFactor
	}
	if u.kind == unitRow {
		for _, c := range u.cells {
			cb := bagOf(c, v.lang)
			for _, st := range v.stems {
				if v.in(cb, st) > 0 && v.weight[st] >= 2 && !isStopCell(c) {
					s.cell = true
				}
			}
		}
		if s.cell {
			score *= cellBoost
		}
		if headerAnswers(expect, v, u) {
			score *= headerBoost
		}
	}
	if len(v.nums) > 0 && inRange(u.text, v.nums) {
		score *= rangeBoost
	}
	if expect.Kind == ExpectProcedure && u.kind == unitLead {
		score *= stepsBoost
	}
	n := len(ContentTokens(u.text))
	if n > longUnitWords {
		score /= 1 + float64(n-longUnitWords)/longUnitSlope
	}
	if n < fragmentWords && u.kind != unitRow {
		score *= fragmentFactor
	}
	s.score = score * v.factor
	return s
}

// isStopCell reports whether a table cell is a generic value that names nothing ("yes", "-").
func isStopCell(c string) bool {
	return len(ContentTokens(c)) == 0
}

// inRange reports whether text has a numeric range ("1-3 years") holding one of nums.
func inRange(text string, nums []float64) bool {
	for _, m := range rangeRe.FindAllStringSubmatch(text, -1) {
		lo, err1 := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "."), 64)
		hi, err2 := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", "."), 64)
		if err1 != nil || err2 != nil || hi <= lo {
			continue
		}
		for _, n := range nums {
			if n >= lo && n <= hi {
				return true
			}
		}
	}
	return false
}

// headerAnswers reports whether a row's column named by the question (a question word in its
// header) holds, in this row, the kind of answer the question asks for. A question that asks
// for no particular kind names a column by two of its words.
func headerAnswers(expect Expect, v queryVariant, u answerUnit) bool {
	for j, h := range u.headers {
		if h == "" || j >= len(u.cells) {
			continue
		}
		hb := bagOf(h, v.lang)
		named := 0
		for _, st := range v.stems {
			if v.in(hb, st) > 0 {
				named++
			}
		}
		if named == 0 {
			continue
		}
		if !expect.crisp() && expect.Kind != ExpectWho && expect.Kind != ExpectTool && expect.Kind != ExpectPlace {
			if named >= 2 {
				return true
			}
			continue
		}
		if kind, _ := expect.satisfies(u.cells[j], nil); kind {
			return true
		}
	}
	return false
}
