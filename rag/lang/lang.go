// Package lang tells Spanish from English text, for stemming and for the answer's language.
package lang

import (
	"strings"
	"unicode"
)

var es = set("el la los las de del que y en un una por con para es se su al lo como más pero sus le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo nosotros cuántos cuántas cómo cuál dónde son tiene puedo debo")
var en = set("the of and to in is that it for on was with as by at from be this have or are an not but what all were when we there can which their if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know get through back much go good new write our me man too any day same right look think also around another came come work three word must because does part whats")

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Detect returns "es", "en", or "simple" when the text is too short or too mixed to tell (tables
// of codes, lists of names). It reads at most the first 4 KB.
func Detect(text string) string {
	if len(text) > 4096 {
		text = text[:4096]
	}
	var esScore, enScore float64
	words := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		words++
		if es[w] {
			esScore++
		}
		if en[w] {
			enScore++
		}
		if strings.ContainsAny(w, "ñáéíóú") {
			esScore += 0.5
		}
	}
	if strings.ContainsAny(text, "¿¡") {
		esScore += 2
	}
	total := esScore + enScore
	switch {
	case total < 1:
		return "simple"
	case esScore >= 1.5*enScore && esScore >= 1:
		return "es"
	case enScore >= 1.5*esScore && enScore >= 1:
		return "en"
	case words < 4:
		return "simple"
	case esScore > enScore:
		return "es"
	default:
		return "en"
	}
}
