package eval

import "testing"

func TestContainsFactIsWordBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer, fact string
		want         bool
	}{
		{"You get **15 days** a year [1].", "5 days", false},
		{"You get 5 days a year [1].", "5 days", true},
		{"It covers up to $2,500.", "$2,500", true},
		{"It covers up to $2,500.", "500", false},
		{"It covers up to $2,500.", "2", false},
		{"The limit is 2.5 hours.", "5 hours", false},
		{"The limit is 5.", "5", true},
		{"Reimbursed within 90 days, (see [1]).", "90 days", true},
		{"Días laborables: 23 [1]", "dias laborables", true},
		{"Ask the CFOs office.", "CFO", false},
		{"Ask the CFO's office.", "CFO", true},
		{"(VP Finance)", "vp finance", true},
		{"VP Finances", "VP Finance", false},
		{"$250,000 per occurrence", "$250", false},
		{"4 hrs.", "4 hrs", true},
		{"", "x", false},
		{"anything", "", false},
	} {
		if got := ContainsFact(tc.answer, []string{tc.fact}); got != tc.want {
			t.Errorf("ContainsFact(%q, %q) = %v, want %v", tc.answer, tc.fact, got, tc.want)
		}
	}
}

func TestDirectAnswerIsTheFirstParagraph(t *testing.T) {
	t.Parallel()
	text := "The budget is 500 EUR [1].\n\nAlso:\n- Up to 800 EUR for managers [2]."
	if got := DirectAnswer(text); got != "The budget is 500 EUR [1]." {
		t.Errorf("DirectAnswer = %q", got)
	}
	if ContainsFact(DirectAnswer(text), []string{"800 EUR"}) {
		t.Error("a related quote counted as the direct answer")
	}
}
