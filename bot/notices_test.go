package bot

import (
	"strings"
	"testing"
	"time"
)

func TestSourceNoticeText(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	escape := func(s string) string { return strings.ReplaceAll(s, "*", `\*`) }
	cut := func(s string, n int) string { return s[:min(n, len(s))] }
	for _, tc := range []struct {
		name string
		n    SourceNotice
		want []string
		not  []string
	}{
		{"one named", SourceNotice{Lang: "en", Changes: []SourceChange{{Kind: SourceUpdated, At: day, Title: "Travel policy"}}},
			[]string{"“Travel policy”", "updated on 1 December 2026", "ask again"}, nil},
		{"cut, then escaped", SourceNotice{Lang: "en", Changes: []SourceChange{{Kind: SourceUpdated, At: day, Title: strings.Repeat("a", 199) + "**"}}},
			[]string{"“" + strings.Repeat("a", 199) + `\*”`}, nil},
		{"one hidden", SourceNotice{Lang: "en", Changes: []SourceChange{{Kind: SourceDeleted, At: day}}},
			[]string{"A document I cited", "deleted on 1 December 2026"}, []string{"“"}},
		{"many", SourceNotice{Lang: "en", Changes: []SourceChange{{Kind: SourceUpdated, At: day, Title: "A"}, {Kind: SourceDeleted, At: day}}},
			[]string{"“A” (updated on 1 December 2026)", "1 more"}, nil},
		{"many hidden", SourceNotice{Lang: "en", Changes: []SourceChange{{Kind: SourceUpdated, At: day}, {Kind: SourceDeleted, At: day}}},
			[]string{"2 documents I cited"}, []string{"“"}},
		{"spanish", SourceNotice{Lang: "es", Changes: []SourceChange{{Kind: SourceUpdated, At: day, Title: "Viajes"}}},
			[]string{"“Viajes”", "se actualizó el 1 de diciembre de 2026", "vuelve a preguntar"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SourceNoticeText(tc.n, escape, cut)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("%q holds %q", got, w)
				}
			}
		})
	}
}
