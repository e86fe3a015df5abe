package rag

import (
	"testing"
	"time"
)

func TestQuestionPeriod(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		q          string
		from, till time.Time
	}{
		{"what was the 2023 travel policy?", day(2023, 1), day(2024, 1)},
		{"¿cuál era la política de viajes de 2023?", day(2023, 1), day(2024, 1)},
		{"prices in March 2024", day(2024, 3), day(2024, 4)},
		{"precios de marzo de 2024", day(2024, 3), day(2024, 4)},
		{"what did the travel policy say last year?", day(2025, 1), day(2026, 1)},
		{"¿qué decía la lista de precios del año pasado?", day(2025, 1), day(2026, 1)},
		{"what was the previous price list?", day(1900, 1), now},
		{"¿cuál era la versión anterior?", day(1900, 1), now},
		{"what is the travel policy?", time.Time{}, time.Time{}},
		{"how do I fix error INC-2023?", time.Time{}, time.Time{}},
		{"compare 2023 and 2025", time.Time{}, time.Time{}},
		{"how many days of vacation?", time.Time{}, time.Time{}},
	} {
		p := QuestionPeriod(tc.q, now)
		if !p.From.Equal(tc.from) || !p.Until.Equal(tc.till) {
			t.Errorf("QuestionPeriod(%q) = [%s, %s), want [%s, %s)", tc.q, p.From, p.Until, tc.from, tc.till)
		}
	}
}

func TestHistoryNote(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	on := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    Validity
		lang string
		want string
	}{
		{Validity{}, "en", ""},
		{Validity{From: on}, "en", ""},
		{Validity{Until: on}, "en", "valid until 2025-01-01"},
		{Validity{Until: on}, "es", "vigente hasta el 2025-01-01"},
		{Validity{Superseded: true, SupersededBy: "travel-2025.md", SupersededOn: on}, "en", "superseded on 2025-01-01 by travel-2025.md"},
		{Validity{Superseded: true, SupersededOn: on}, "es", "sustituido el 2025-01-01"},
		{Validity{From: now.AddDate(1, 0, 0)}, "en", "valid from 2027-12-02"},
	} {
		if got := HistoryNote(tc.v, now, tc.lang); got != tc.want {
			t.Errorf("HistoryNote(%+v, %s) = %q, want %q", tc.v, tc.lang, got, tc.want)
		}
	}
}
