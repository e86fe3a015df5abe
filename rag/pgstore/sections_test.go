package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/citahq/cita/rag"
)

func TestDocumentSectionsOnlyUnderScope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	hr := b.doc(t, "src", "hr/salaries.md", "Salary bands", "en", []string{"hr"},
		"Band 4 tops out at 61,000 euros.", "Band 5 starts at 58,000 euros.")
	eng := b.doc(t, "src", "eng/oncall.md", "On-call", "en", []string{"eng", "everyone"}, "Pages go to the primary first.")

	got, err := b.store.DocumentSections(ctx, hr, rag.MustScope("hr"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Content != "Band 4 tops out at 61,000 euros." || got[1].Content != "Band 5 starts at 58,000 euros." {
		t.Fatalf("sections out of order or missing: %+v", got)
	}
	if got[0].Path != "hr/salaries.md" || got[0].DocumentID != hr || got[0].DocVersion == 0 {
		t.Fatalf("document fields not loaded: %+v", got[0])
	}
	for _, tc := range []struct {
		name  string
		id    int64
		scope rag.Scope
		want  error
	}{
		{"another group's document", hr, rag.MustScope("everyone", "eng"), rag.ErrDocumentNotFound},
		{"no such document", hr + eng + 1000, rag.MustScope("hr"), rag.ErrDocumentNotFound},
		{"empty scope", eng, rag.Scope{}, rag.ErrNoScope},
	} {
		if _, err := b.store.DocumentSections(ctx, tc.id, tc.scope); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}
