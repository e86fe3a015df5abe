package lang

import "testing"

func TestFoldRemovesAccentsAndCaseOnly(t *testing.T) {
	for in, want := range map[string]string{
		"Vacación":             "vacacion",
		"¿Cuántos DÍAS?":       "¿cuantos dias?",
		"Ñandú, año":           "nandu, ano",
		"already plain":        "already plain",
		"SKU-77812 (pingüino)": "sku-77812 (pinguino)",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
