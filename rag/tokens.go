package rag

import (
	"strings"
	"unicode"

	"github.com/citahq/cita/rag/lang"
)

// ContentTokens lower-cases and unaccents text, splits it into words (codes like "ERR_4402" and
// "5.440.000" stay whole) and drops Spanish and English stopwords.
func ContentTokens(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		w := strings.Trim(b.String(), "._-")
		b.Reset()
		if w != "" && !stopwords[w] {
			out = append(out, w)
		}
	}
	for _, r := range lang.Fold(text) { // "vacación" == "vacacion"
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case (r == '.' || r == '_' || r == '-') && b.Len() > 0:
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// TokenStem is a light, language-neutral stem: the first six runes. It makes plurals and most
// inflections meet ("vacaciones"/"vacación", "deploys"/"deploying").
func TokenStem(tok string) string {
	r := []rune(tok)
	if len(r) > 6 {
		return string(r[:6])
	}
	return tok
}

// stopwords are unaccented Spanish and English function words; they carry no topic. Number
// words are not among them ("dos días" is two days; numberWords writes them as digits), except
// the articles "un", "una", "uno" and "unos", which are mostly "a" and "some".
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a al algo algun alguna algunas alguno algunos ante antes aquel aquella aquellas aquellos aqui asi aun
cada como con contra cual cuales cuando cuanto cuantos cuanta cuantas de del desde donde e el ella ellas
ello ellos en entre era eran es esa esas ese eso esos esta estaba estan estar estas este esto estos fue
fueron ha habia han hasta hay la las le les lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra
otras otro otros para pero poco por porque que quien quienes se sea ser si sido sin sobre son su sus tal
tambien tan tanto te tiene tienen todo todos tu tus un una unas uno unos usted ustedes y ya yo puedo debo
the of and to in is was for on that with as by at from it an be this which or are were has have had not but
what when where who whom why how their there they them its his her he she we you your our than then so
do does did can could would should will shall may might must into about over after before been being
these those such if no nor only own same too very just also any each few more most other some both all
i me my am get
`) {
		m[w] = true
	}
	return m
}()
