package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
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

// TestNoticeNamesOnlyWhatEveryReaderMayRead: a changed document keeps its title only when every
// reader of the thread now holds one of its groups; with no readers known, none is named.
func TestNoticeNamesOnlyWhatEveryReaderMayRead(t *testing.T) {
	n := SourceNotice{Changes: []SourceChange{
		{DocumentID: 1, Title: "Salary bands", Groups: []string{"hr"}},
		{DocumentID: 2, Title: "Vacation policy", Groups: []string{"everyone", "hr"}},
		{DocumentID: 3, Title: "", Groups: []string{"everyone"}}, // cita decided not to name it: stays unnamed
	}}
	hr, all := rag.MustScope("everyone", "hr"), rag.MustScope("everyone")
	cases := []struct {
		name    string
		readers []rag.Scope
		want    []string
	}{
		{"hr readers only", []rag.Scope{hr}, []string{"Salary bands", "Vacation policy", ""}},
		{"an hr reader and another", []rag.Scope{hr, all}, []string{"", "Vacation policy", ""}},
		{"a reader who reads nothing", []rag.Scope{hr, {}}, []string{"", "", ""}},
		{"readers unknown", nil, []string{"", "", ""}},
	}
	for _, c := range cases {
		got := n.NamedFor(c.readers)
		for i, ch := range got.Changes {
			if ch.Title != c.want[i] {
				t.Errorf("%s: change %d titled %q, want %q", c.name, ch.DocumentID, ch.Title, c.want[i])
			}
		}
	}
	if n.Changes[0].Title != "Salary bands" {
		t.Error("NamedFor changed the notice it was given")
	}
}
