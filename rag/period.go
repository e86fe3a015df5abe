package rag

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// monthNames maps English and Spanish month names (and common abbreviations) to their month.
var monthNames = map[string]time.Month{
	"january": 1, "jan": 1, "enero": 1, "february": 2, "feb": 2, "febrero": 2, "march": 3, "mar": 3, "marzo": 3,
	"april": 4, "apr": 4, "abril": 4, "may": 5, "mayo": 5, "june": 6, "jun": 6, "junio": 6,
	"july": 7, "jul": 7, "julio": 7, "august": 8, "aug": 8, "agosto": 8,
	"september": 9, "sep": 9, "sept": 9, "septiembre": 9, "setiembre": 9,
	"october": 10, "oct": 10, "octubre": 10, "november": 11, "nov": 11, "noviembre": 11,
	"december": 12, "dec": 12, "diciembre": 12,
}

var (
	// A year on its own: not part of a code ("INC-2023", "v2023", "2023-11"), 1990 to 2099.
	yearRe = regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}\-/.])((?:19[9]\d|20\d\d))(?:$|[^\p{L}\p{N}\-/])`)
	// "March 2024", "marzo de 2024", "March of 2024".
	monthYearRe = regexp.MustCompile(`(?i)\b(\p{L}+)\s+(?:de\s+|of\s+|del\s+)?((?:19[9]\d|20\d\d))\b`)
	lastYearRe  = regexp.MustCompile(`(?i)\b(last year|the previous year|el año pasado|del año pasado|el pasado año)\b`)
	// A question about what used to hold: the previous policy, la versión anterior.
	formerRe = regexp.MustCompile(`(?i)\b(previous|former|superseded|archived|used to|anterior|antigua|antiguo|vieja|viejo|previa|previo|archivad[ao]|sustituid[ao]|solía)\b`)
)

// QuestionPeriod returns the period a question names, relative to now: a year ("the 2023 travel
// policy", "la política de viajes de 2023"), a month and year ("March 2024", "marzo de 2024"),
// "last year" / "el año pasado", or an earlier version ("the previous price list", "la versión
// anterior": any time before now). It returns the zero Period ("now") when the question names
// none, or names more than one year (a comparison is left to current documents).
func QuestionPeriod(q string, now time.Time) Period {
	now = now.UTC()
	years := map[int]bool{}
	for _, m := range yearRe.FindAllStringSubmatch(q, -1) {
		y, _ := strconv.Atoi(m[1])
		years[y] = true
	}
	if len(years) == 1 {
		for _, m := range monthYearRe.FindAllStringSubmatch(q, -1) {
			if month, ok := monthNames[strings.ToLower(m[1])]; ok {
				y, _ := strconv.Atoi(m[2])
				from := time.Date(y, month, 1, 0, 0, 0, 0, time.UTC)
				return Period{From: from, Until: from.AddDate(0, 1, 0), Label: m[1] + " " + m[2]}
			}
		}
		for y := range years {
			from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			return Period{From: from, Until: from.AddDate(1, 0, 0), Label: strconv.Itoa(y)}
		}
	}
	if len(years) > 1 {
		return Period{}
	}
	if m := lastYearRe.FindString(q); m != "" {
		from := time.Date(now.Year()-1, 1, 1, 0, 0, 0, 0, time.UTC)
		return Period{From: from, Until: from.AddDate(1, 0, 0), Label: m}
	}
	if m := formerRe.FindString(q); m != "" {
		return Period{From: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Until: now, Label: m}
	}
	return Period{}
}
