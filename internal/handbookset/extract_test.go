package handbookset_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/handbookset"
	"github.com/citahq/cita/sync/extract"
)

// TestProjectHandbookGoldSurvivesExtraction checks that every gold answer of the project's sets
// is still in its gold file after extraction: a fact the extractor drops or rewrites can never
// be quoted, and the miss would be blamed on the answerer.
func TestProjectHandbookGoldSurvivesExtraction(t *testing.T) {
	t.Parallel()
	for _, dir := range projectSets {
		t.Run(filepath.Base(dir), func(t *testing.T) { goldSurvivesExtraction(t, dir) })
	}
}

func goldSurvivesExtraction(t *testing.T, dir string) {
	set, err := handbookset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for name, raw := range set.Files {
		doc, err := extract.Extract(context.Background(), name, []byte(raw), extract.DefaultLimits())
		if err != nil {
			t.Fatalf("extract %s: %v", name, err)
		}
		texts[name] = flatten(doc)
	}
	for _, q := range set.Questions {
		for _, ans := range append([]string{q.GoldAnswer}, q.AltAnswers...) {
			if ans == "" {
				continue
			}
			found := false
			for _, f := range q.GoldFiles {
				found = found || handbookset.ContainsFold(texts[f], ans)
			}
			if !found {
				t.Errorf("%s: %q is not in the extracted text of %v", q.ID, ans, q.GoldFiles)
			}
		}
	}
}

// flatten joins a document's text the way it reaches the index: paragraphs, list items, and
// table cells one row at a time.
func flatten(doc *extract.Document) string {
	var b strings.Builder
	for _, s := range doc.Sections {
		for _, bl := range s.Blocks {
			b.WriteString(bl.Text)
			b.WriteByte('\n')
			if bl.Table == nil {
				continue
			}
			for _, row := range append([][]string{bl.Table.Header}, bl.Table.Rows...) {
				b.WriteString(strings.Join(row, " | "))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}
