package chunk

import (
	"strings"
	"testing"
)

func TestCountTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"whitespace only", " \n\t ", 0},
		{"short words", "de la casa", 3},
		{"long word counts per four letters", "vacaciones", 3},
		{"punctuation counts one each", "¿Sí?", 3},
		{"accented letters are letters", "está él", 2},
		{"digits are a word", "2026", 1},
		{"code in a cell", "A-123", 3},
		{"markdown row", "| a | b |", 5},
		{"han characters count one each", "日本語", 3},
		{"combining mark joins the word", "cafe\u0301", 2},
		{"invalid bytes count one each", "\xff\xfe", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CountTokens(tt.in); got != tt.want {
				t.Errorf("CountTokens(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestCountTokensAddsAcrossWhitespace(t *testing.T) {
	t.Parallel()
	parts := []string{"Los empleados", "tienen derecho a 23 días hábiles.", "|---|", "日本", "xxxxxxxxxxxxx", "\xff"}
	for _, a := range parts {
		for _, b := range parts {
			for _, ws := range []string{" ", "\n\n", "\t"} {
				if got, want := CountTokens(a+ws+b), CountTokens(a)+CountTokens(b); got != want {
					t.Errorf("CountTokens(%q+%q+%q) = %d, want %d", a, ws, b, got, want)
				}
			}
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	t.Parallel()
	s := "uno dos tres cuatro cinco"
	for limit := 0; limit <= CountTokens(s)+1; limit++ {
		end := prefixEnd(s, limit)
		if got := CountTokens(s[:end]); got > limit {
			t.Errorf("limit %d: prefix %q has %d tokens", limit, s[:end], got)
		}
		if end < len(s) && CountTokens(s[:end+1]) <= limit {
			t.Errorf("limit %d: prefix %q is not the longest", limit, s[:end])
		}
	}
	if got := prefixEnd(strings.Repeat("ñ", 10), 2); got != 16 {
		t.Errorf("prefixEnd on two-byte runes = %d, want 16 (eight runes, rune boundary)", got)
	}
}
