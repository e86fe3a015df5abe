package rag

import (
	"slices"
	"testing"
)

// Number words, cardinal and ordinal, in both languages, meet the digits a document writes.
func TestNumberWordsBecomeDigits(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, want string }{
		// "dos" is Spanish "two", not a function word.
		{"dos días", "2"}, {"DOS semanas", "2"}, {"two days", "2"}, {"treinta días", "30"}, {"thirty days", "30"},
		{"first week", "1"}, {"primera semana", "1"}, {"el primer día", "1"}, {"primero", "1"},
		{"second month", "2"}, {"segunda quincena", "2"}, {"segundo", "2"},
		{"third year", "3"}, {"tercer año", "3"}, {"tercera", "3"}, {"tercero", "3"},
		{"fourth", "4"}, {"cuarto trimestre", "4"}, {"cuarta", "4"},
		{"fifth", "5"}, {"quinto", "5"}, {"quinta", "5"},
		{"sixth", "6"}, {"sexto", "6"}, {"sexta", "6"},
		{"seventh", "7"}, {"séptimo", "7"}, {"séptima", "7"}, {"sétimo", "7"},
		{"eighth", "8"}, {"octavo", "8"}, {"octava", "8"},
		{"ninth", "9"}, {"noveno", "9"}, {"novena", "9"},
		{"tenth", "10"}, {"décimo", "10"}, {"décima", "10"},
		{"twentieth", "20"}, {"vigésimo", "20"}, {"vigésima", "20"},
		{"thirtieth", "30"}, {"trigésimo", "30"}, {"trigésima", "30"},
	}
	for _, c := range cases {
		if got := answerTokens(c.text); !slices.Contains(got, c.want) {
			t.Errorf("answerTokens(%q) = %q, want it to hold %q", c.text, got, c.want)
		}
	}
}

func TestDosIsAContentWord(t *testing.T) {
	t.Parallel()
	if got := ContentTokens("los dos días"); !slices.Equal(got, []string{"dos", "dias"}) {
		t.Errorf("ContentTokens(%q) = %q, want [dos dias]", "los dos días", got)
	}
	// "dos días" and "2 días" are the same stems to the answerer.
	if a, b := stemsOf("dos días", "es"), stemsOf("2 días", "es"); !slices.Equal(a, b) {
		t.Errorf("stems of %q = %q, of %q = %q; want equal", "dos días", a, "2 días", b)
	}
}
