package rag

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag/lang"
)

// A question variant is the question as asked, or its rendering in another language (see
// ComposeRequest.Alternatives); each is matched in its own language.
type queryVariant struct {
	lang   string
	stems  []string           // unique stems, in question order
	words  map[string]string  // stem -> the word it came from, for explanations
	weight map[string]float64 // stem -> weight before rarity
	factor float64            // 1 for the question as asked, less for a translation
	nums   []float64          // numbers the question names ("after 2 years")
}

func newQueryVariant(text, lang string, factor float64) queryVariant {
	v := queryVariant{lang: lang, words: map[string]string{}, weight: map[string]float64{}, factor: factor}
	for _, tok := range answerTokens(text) {
		st := stemToken(tok, lang)
		if _, dup := v.weight[st]; dup {
			continue
		}
		w := 1 + math.Min(float64(len([]rune(tok))), 12)/4 // longer words are rarer
		if light[tok] {
			w *= lightWeight
		}
		if isCode(tok) {
			w *= 2 // codes name exactly what is asked about; a bare number ("25 year old") may not
		}
		v.stems = append(v.stems, st)
		v.words[st] = tok
		v.weight[st] = w
		if n, err := strconv.ParseFloat(strings.ReplaceAll(tok, ",", "."), 64); err == nil {
			v.nums = append(v.nums, n)
		}
	}
	return v
}

// isCode reports whether a token is a code: letters mixed with digits or underscores ("SKU-77812",
// "ERR_4402", "401k").
func isCode(tok string) bool {
	letters, digits := 0, 0
	for _, r := range tok {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case r == '_':
			return true
		}
	}
	return letters > 0 && digits > 0
}

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
}

// unitScorer scores the answer units of a set of sources against a question.
type unitScorer struct {
	expect   Expect
	variants []queryVariant
	rarity   map[string]float64 // per variant language and stem ("en:vacat"): 0..1, 1 = rare in these sources
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
}

func prepareSources(sources []Source, questionLang string, langs []string) [][]sourceUnits {
	// One preparation per stemming language: a source is matched in its own language, except
	// that the text of language-neutral documents follows each variant's language.
	out := make([][]sourceUnits, len(langs))
	for li, ql := range langs {
		out[li] = make([]sourceUnits, len(sources))
		for si, s := range sources {
			tl := textLang(s.Lang, ql)
			su := sourceUnits{units: answerUnitsOf(s.Content)}
			parts := strings.Split(s.Section, " > ")
			su.section = bagOf(parts[len(parts)-1], tl)
			su.faq = isQuestionLine(parts[len(parts)-1])
			su.doc = bagOf(s.Title+" "+strings.Join(parts[:len(parts)-1], " "), tl)
			for _, u := range su.units {
				su.text = append(su.text, bagOf(u.text, tl))
				su.list = append(su.list, bagOf(u.text+"\n"+strings.Join(u.itemTexts(), "\n"), tl))
				su.context = append(su.context, bagOf(u.context, tl))
				su.prev = append(su.prev, bagOf(u.prev, tl))
			}
			out[li][si] = su
		}
	}
	_ = questionLang
	return out
}

// scoreUnits scores every unit of every source for the question and its variants, best first.
func scoreUnits(expect Expect, variants []queryVariant, sources []Source) []scoredUnit {
	langs := []string{}
	langIndex := map[string]int{}
	for _, v := range variants {
		if _, ok := langIndex[v.lang]; !ok {
			langIndex[v.lang] = len(langs)
			langs = append(langs, v.lang)
		}
	}
	prepared := prepareSources(sources, variants[0].lang, langs)
	common := commonNames(prepared[0], variants)
	rarity := make([]map[string]float64, len(variants))
	for i, v := range variants {
		rarity[i] = rarityOf(prepared[langIndex[v.lang]], v)
	}
	var out []scoredUnit
	for si := range sources {
		for ui := range prepared[0][si].units {
			var best scoredUnit
			for vi, v := range variants {
				su := prepared[langIndex[v.lang]][si]
				s := scoreUnit(expect, v, rarity[vi], common, su, ui)
				s.source = si
				if s.score > best.score || best.text == "" {
					best = s
				}
			}
			best.score /= 1 + 0.08*float64(si) + 0.002*float64(ui) // retrieval's and the document's order are priors
			out = append(out, best)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// commonNames returns the lower-cased capitalised words that name nothing in particular here:
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
			for _, w := range strings.Fields(u.text) {
				w = strings.Trim(w, nameTrim)
				if r := []rune(w); len(r) > 1 && unicode.IsUpper(r[0]) && !seen[w] {
					seen[w] = true
					count[strings.ToLower(w)]++
				}
			}
		}
	}
	for w, c := range count {
		if c >= 3 && float64(c) >= 0.25*float64(n) {
			out[w] = true
		}
	}
	return out
}

// rarityOf returns, for each of the variant's stems, how rare it is among the units of these
// sources: 1 when no unit has it, falling towards 0.3 when every unit has it. A word every
// passage shares ("laptop" among laptop pages) tells little about which passage answers.
//
// A word no source holds anywhere (text, headings, title) weighs absentWeight: the passages are
// about something else when they never say what the question is about ("paternity").
func rarityOf(prepared []sourceUnits, v queryVariant) map[string]float64 {
	n := 0
	df := map[string]int{}
	seen := stemBag{}
	for _, su := range prepared {
		for st := range su.section {
			seen[st] = true
		}
		for st := range su.doc {
			seen[st] = true
		}
		for ui := range su.units {
			n++
			for _, st := range v.stems {
				if su.text[ui][st] {
					df[st]++
				}
				if su.context[ui][st] || su.prev[ui][st] || su.list[ui][st] {
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
			out[st] = 0.3 + 0.7*(1-float64(df[st])/float64(n))
		}
	}
	return out
}

// numberInRange reports whether tok is a number that a range of text holds ("2" in "1-3 years").
func numberInRange(tok, text string) bool {
	n, err := strconv.ParseFloat(strings.ReplaceAll(tok, ",", "."), 64)
	return err == nil && inRange(text, []float64{n})
}

// absentWeight is the rarity of a question word no source holds anywhere (1 is a word the
// sources hold in no unit's text but in a heading or a title).
const absentWeight = 2.0

// Weights of where a question word is found: in the unit itself, in the FAQ question or lead
// sentence it answers, in its section heading, or only in the document's title and parents.
const (
	inText    = 1.0
	inContext = 0.7
	inSection = 0.6
	inPrev    = 0.5
	inDoc     = 0.35
)

var rangeRe = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s*(?:-|–|to|a|hasta)\s*(\d+(?:[.,]\d+)?)`)

func scoreUnit(expect Expect, v queryVariant, rarity map[string]float64, common map[string]bool, su sourceUnits, ui int) scoredUnit {
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
		prevWeight = inText // quoted together with the sentence it points back to
	}
	var got, total, inUnit, absent, subject, said float64
	s.whole = true
	for _, st := range v.stems {
		w := v.weight[st] * rarity[st]
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
		switch {
		case text[st] || numberInRange(v.words[st], u.text):
			got += inText * w
			inUnit += w
			s.matched = append(s.matched, v.words[st])
		case su.context[ui][st]:
			got += inContext * w
			s.matched = append(s.matched, v.words[st]+" (context)")
		case su.section[st]:
			got += section * w
			s.matched = append(s.matched, v.words[st]+" (section)")
		case su.prev[ui][st]:
			got += prevWeight * w
			s.matched = append(s.matched, v.words[st]+" (previous sentence)")
		case su.doc[st]:
			got += inDoc * w
			local = false
		default:
			local = false
		}
		if isSubject && local {
			said += w
		}
		if !(text[st] || numberInRange(v.words[st], u.text)) {
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
	s.kindOK, s.unitOK = expect.satisfies(u.text+" "+strings.Join(u.itemTexts(), " "), common)
	// A unit must say something of the question itself, unless what it answers (an FAQ
	// question, a lead sentence, its heading, the sentence before) covers the question's words
	// the sources know well, or well enough when the unit holds the specific kind of answer
	// asked for ("It is set to 30 minutes." after the sentence about inactive sessions).
	if inUnit == 0 && total > absent {
		known := got / (total - absent)
		if known < 0.45 && !(expect.Kind != ExpectFact && s.kindOK && known >= 0.3) {
			return s
		}
	}
	score := s.coverage
	switch {
	case s.kindOK && s.unitOK:
		score *= 1.3
	case s.kindOK && expect.Kind == ExpectQuantity && expect.Unit != "" && expect.Unit != "age":
		score *= 0.6 // a number, but not of what the question counts
	case s.kindOK:
	case expect.crisp():
		score *= 0.3
	case expect.Kind == ExpectYesNo:
		score *= 0.8
	default:
		score *= 0.6 // no name for "who", no steps for "how do I"
	}
	if u.kind == unitRow {
		for _, c := range u.cells {
			cb := bagOf(c, v.lang)
			for _, st := range v.stems {
				if cb[st] && v.weight[st] >= 2 && !isStopCell(c) {
					s.cell = true
				}
			}
		}
		if s.cell {
			score *= 1.3
		}
	}
	if len(v.nums) > 0 && inRange(u.text, v.nums) {
		score *= 1.2
	}
	if expect.Kind == ExpectProcedure && u.kind == unitLead {
		score *= 1.3 // steps are the answer to "how do I"
	}
	n := len(ContentTokens(u.text))
	if n > 30 {
		score /= 1 + float64(n-30)/40 // a long sentence says many things
	}
	if n < 3 && u.kind != unitRow {
		score *= 0.6 // a fragment rarely answers
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

// questionVariants are the question as asked (in its language) and its translation, which
// counts a little less.
func questionVariants(req ComposeRequest) []queryVariant {
	vs := []queryVariant{newQueryVariant(req.Question, req.Lang, 1)}
	if other := otherLang(req.Lang); other != "" && lang.Detect(req.Question) == lang.Simple {
		// Too short to tell ("dieta diaria viajes nacionales euros"): the words are matched
		// stemmed as either language, so a keyword query is not missed for a guess.
		vs = append(vs, newQueryVariant(req.Question, other, 1))
	}
	if t := strings.TrimSpace(req.Translation); t != "" {
		tl := req.TranslationLang
		if tl == "" {
			tl = AnswerLang(t)
		}
		vs = append(vs, newQueryVariant(t, tl, 0.9))
	}
	return vs
}

// SupportReport says how well sources answer a question.
type SupportReport struct {
	// Score is the score of the best answer unit (see the extractive composer), between 0 and
	// about 1.5. It is low when no passage holds the question's key words, and when the question
	// asks for a kind of answer (a number, a date, an address) that no matching passage holds.
	Score float64
	// Missing are the question's words that no source holds, anywhere (for the variant of the
	// question that misses the least).
	Missing []string
	// MissingShare is their weighted share of the question.
	MissingShare float64
	// UnknownNames are the capitalised names of the question no source mentions; each halves
	// Score.
	UnknownNames []string
	// Answerability is what the best unit says of the question (see Answerability).
	Answerability Answerability
}

// Answerability tells "a passage states the answer" from "the passages are about the topic",
// from the unit that would be the direct answer.
type Answerability struct {
	// Local is the share of the question's subject the unit says where it stands (scoredUnit.local).
	Local float64 `json:"local"`
	// KindOK: the unit holds the kind of answer asked for (a number, a date, an address...), or
	// the question asks for no particular kind.
	KindOK bool `json:"kind_ok"`
	// Whole: the unit's own text holds every question word the sources know.
	Whole bool `json:"whole"`
}

// unknownNamePenalty scales the support for each name of the question that no source mentions.
const unknownNamePenalty = 0.5

// unknownNames returns the question's capitalised words (not opening it, not all capitals, of
// three letters or more) that appear in no source, in any form: names of places, products or
// people the sources do not know.
func unknownNames(question string, sources []Source) []string {
	var all strings.Builder
	for _, s := range sources {
		all.WriteString(s.Title + "\n" + s.Section + "\n" + s.Content + "\n")
	}
	text := foldCue(all.String())
	var out []string
	words := strings.Fields(question)
	for i, w := range words {
		w = strings.Trim(w, nameTrim)
		r := []rune(w)
		if i == 0 || len(r) < 3 || !unicode.IsUpper(r[0]) || strings.ToUpper(w) == w || strings.ContainsAny(w, "'’") {
			continue
		}
		if prev := words[i-1]; strings.HasSuffix(prev, ".") || strings.HasSuffix(prev, "?") || strings.HasSuffix(prev, "!") {
			continue
		}
		if !containsPhrase(text, foldCue(stemPrefix(w)), true) {
			out = append(out, w)
		}
	}
	return out
}

// stemPrefix is a word without a plural or possessive ending, for a prefix match ("Macs" finds
// "Mac", "Ondaria's" finds "Ondaria").
func stemPrefix(w string) string {
	for _, suffix := range []string{"'s", "’s", "es", "s"} {
		if t, ok := strings.CutSuffix(w, suffix); ok && len([]rune(t)) >= 3 {
			return t
		}
	}
	return w
}

// Support reports how well req's sources answer its question (and its translation).
func Support(req ComposeRequest) SupportReport {
	sources := req.Sources
	if len(sources) == 0 {
		return SupportReport{MissingShare: 1}
	}
	variants := questionVariants(req)
	units := scoreUnits(DetectExpect(req.Question), variants, sources)
	rep := SupportReport{MissingShare: 1}
	if len(units) > 0 {
		best := units[0]
		rep.Score = best.score
		expect := DetectExpect(req.Question)
		rep.Answerability = Answerability{Local: best.local, KindOK: best.kindOK || !expect.crisp(), Whole: best.whole}
		for _, u := range units {
			if u.whole && len(variants[0].stems) > 0 {
				// Every word of the question in one passage: a keyword query answered there.
				rep.Answerability.Whole = true
				rep.Score = max(rep.Score, u.score)
				break
			}
		}
	}
	for _, v := range variants {
		tl := func(s Source) string { return textLang(s.Lang, v.lang) }
		found := stemBag{}
		for _, s := range sources {
			for st := range bagOf(s.Title+" "+s.Section+"\n"+s.Content, tl(s)) {
				found[st] = true
			}
		}
		var missing []string
		var miss, total float64
		for _, st := range v.stems {
			total += v.weight[st]
			if !found[st] {
				miss += v.weight[st]
				missing = append(missing, v.words[st])
			}
		}
		if total > 0 && miss/total < rep.MissingShare {
			rep.Missing, rep.MissingShare = missing, miss/total
		}
	}
	// A name the question is about ("Tokyo", "Ireland") that no source mentions at all means the
	// sources talk about something else: a passage on Madrid's parking does not answer about
	// Tokyo's.
	unknown := unknownNames(req.Question, sources)
	if req.Translation != "" && len(unknown) > 0 {
		// "Francia" is known when the translation's "France" is.
		if viaTranslation := unknownNames(req.Translation, sources); len(viaTranslation) < len(unknown) {
			unknown = viaTranslation
		}
	}
	if len(unknown) > 0 {
		rep.Score *= math.Pow(unknownNamePenalty, float64(len(unknown)))
		rep.UnknownNames = unknown
	}
	return rep
}

// otherLang is the other language cita answers in ("" for anything but "es" and "en").
func otherLang(l string) string {
	switch l {
	case "es":
		return "en"
	case "en":
		return "es"
	}
	return ""
}
