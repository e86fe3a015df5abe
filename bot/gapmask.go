package bot

import (
	"regexp"
	"strings"
	"unicode"
)

// Masks put in place of what identifies a person in a shared question.
const (
	MaskEmail   = "[email]"
	MaskPhone   = "[phone]"
	MaskPerson  = "[person]"
	MaskMention = "[someone]"
)

var (
	maskEmail = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}`)
	// A phone number: at least 7 digits, with the usual separators and an optional +country.
	maskPhone = regexp.MustCompile(`\+?\(?\d[\d\s().\-]{5,}\d`)
	// Slack (<@U123>, <@U123|name>) and Discord (<@123>, <@!123>) mentions, and @handles.
	maskMention = regexp.MustCompile(`<@[!&]?[A-Za-z0-9]+(\|[^>]*)?>|(^|\s)@[\p{L}0-9._\-]+`)
	// Not phones: amounts with thousands separators (1.500.000, 12,000,000) and dates.
	notPhone = regexp.MustCompile(`^(\d{1,3}([.,]\d{3})+([.,]\d+)?|\d{4}-\d{2}-\d{2}|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4})$`)
)

// personCues are words after which a capitalised word is a person's name ("my manager Ana",
// "ask Pedro", "de parte de Lucía").
var personCues = map[string]bool{
	"manager": true, "boss": true, "lead": true, "colleague": true, "coworker": true, "teammate": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "ask": true, "asked": true, "told": true, "tell": true,
	"jefe": true, "jefa": true, "compañero": true, "compañera": true, "sr": true, "sra": true, "don": true,
	"doña": true, "preguntar": true, "pregunté": true, "dijo": true, "con": true, "para": true, "with": true,
}

// placeCues are words after which a capitalised word no document uses is a place or a time
// ("in Lisbon", "en Bogotá", "from Monday"), not a person.
var placeCues = map[string]bool{"in": true, "at": true, "from": true, "near": true, "en": true, "desde": true, "hacia": true}

// MaskQuestion returns question with what identifies a person masked: e-mail addresses, phone
// numbers, mentions, and capitalised words that name a person, either after a cue ("my manager
// Ana") or known to the caller as a name (names: words no document uses, such as the pipeline's
// unknown names; nil for none). Long digit runs that are codes the documents use ("ERR-4402")
// stay as they are: only separators-and-digits runs of 7 or more digits count as phones.
func MaskQuestion(question string, names func(word string) bool) string {
	out := maskEmail.ReplaceAllString(question, MaskEmail)
	out = maskMention.ReplaceAllStringFunc(out, func(m string) string {
		if strings.HasPrefix(strings.TrimSpace(m), "<@") {
			return MaskMention
		}
		lead := m[:len(m)-len(strings.TrimLeft(m, " \t\n"))]
		return lead + MaskMention
	})
	out = maskPhone.ReplaceAllStringFunc(out, func(m string) string {
		digits := 0
		for _, r := range m {
			if unicode.IsDigit(r) {
				digits++
			}
		}
		if digits < 7 || notPhone.MatchString(strings.TrimSpace(m)) {
			return m
		}
		return MaskPhone
	})
	words := strings.Fields(out)
	for i, w := range words {
		core, ok := capitalised(words, i)
		if !ok {
			continue
		}
		prev := strings.ToLower(strings.TrimFunc(words[i-1], func(r rune) bool { return !unicode.IsLetter(r) }))
		if personCues[prev] || (!placeCues[prev] && names != nil && names(strings.ToLower(core))) {
			words[i] = strings.Replace(w, core, MaskPerson, 1)
		}
	}
	return strings.Join(words, " ")
}

// NameCandidates returns the lowercased capitalised words of question that are not its first
// word: the words MaskQuestion asks its names function about.
func NameCandidates(question string) []string {
	words := strings.Fields(question)
	var out []string
	for i := range words {
		if core, ok := capitalised(words, i); ok {
			out = append(out, strings.ToLower(core))
		}
	}
	return out
}

// capitalised returns words[i]'s letters when it starts with a capital and is not the first
// word (which is capitalised by writing, not by being a name).
func capitalised(words []string, i int) (string, bool) {
	if i == 0 {
		return "", false
	}
	w := words[i]
	if strings.ContainsFunc(w, unicode.IsDigit) {
		return "", false // a code ("ERR-4402"), not a name
	}
	core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, poss := range []string{"'s", "’s"} {
		core = strings.TrimSuffix(core, poss)
	}
	core = strings.TrimFunc(core, func(r rune) bool { return !unicode.IsLetter(r) })
	if core == "" || !unicode.IsUpper([]rune(core)[0]) {
		return "", false
	}
	return core, true
}
