package indexer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/extract"
	"github.com/citahq/cita/sync/indexer"
)

func everyone(string) []string { return []string{"everyone"} }

// officeBundle is a store that has indexed, once, a folder of officeCases written at root.
type officeBundle struct {
	*bundle
	cases []officeCase
	root  string
}

// setupOffice writes the office folder (writeOfficeFolder), indexes it as source "office" with
// every file readable by everyone, and returns the first sync's report.
func setupOffice(t *testing.T) (*officeBundle, *indexer.Report) {
	t.Helper()
	b := &officeBundle{bundle: setup(t), cases: officeCases()}
	b.root = writeOfficeFolder(t, b.cases)
	return b, b.syncOffice(t)
}

// syncOffice indexes the office folder again.
func (b *officeBundle) syncOffice(t *testing.T) *indexer.Report {
	t.Helper()
	return b.syncFolder(t, "office", b.root, everyone)
}

func (b *bundle) searchTop(t *testing.T, query string) []rag.Hit {
	t.Helper()
	res, err := rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions()).
		Search(context.Background(), rag.SearchRequest{Query: query, Scope: rag.MustScope("everyone"), Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("%q found nothing", query)
	}
	return res.Hits
}

// hasToken reports whether text holds code delimited by whitespace, a cell separator ("|"), a
// record label (": ") or the text's ends, never glued to a neighbouring word.
func hasToken(text, code string) bool {
	return regexp.MustCompile(`(^|[\s|:])` + regexp.QuoteMeta(code) + `($|[\s|])`).MatchString(text)
}

// TestOfficeFormatsEndToEnd writes one document per format whose table row holds three codes,
// each alone in its cell, indexes the folder with the real extractors, chunker and PostgreSQL
// store, and searches each code: the format's document must come first, from the chunk holding
// the code as a token of its own and with its page, sheet or slide. Next to each document sits a
// control in the same format holding what a chunker that dropped the cell separator would index
// (the two codes glued in one cell): the glued form must find the control, not the real
// document. Broken files are reported by name and reason.
func TestOfficeFormatsEndToEnd(t *testing.T) {
	t.Parallel()
	b, rep := setupOffice(t)
	cases := b.cases

	if rep.Added != 2*len(cases) || rep.Listed != 2*len(cases)+3 {
		t.Errorf("listed %d, added %d; want %d listed, %d added: %+v", rep.Listed, rep.Added, 2*len(cases)+3, 2*len(cases), rep)
	}
	t.Run("broken files are reported by name and reason", func(t *testing.T) {
		want := map[string]error{"roto.docx": extract.ErrCorrupt, "protegido.pdf": extract.ErrEncrypted, "protegido.xlsx": extract.ErrEncrypted}
		if len(rep.Failed) != len(want) {
			t.Errorf("failed %v, want exactly %v", rep.Failed, want)
		}
		for _, f := range rep.Failed {
			sentinel, ok := want[f.ExternalID]
			if !ok {
				t.Errorf("unexpected failure %s: %v", f.ExternalID, f.Err)
				continue
			}
			if !errors.Is(f.Err, sentinel) || !strings.Contains(f.Err.Error(), f.ExternalID) {
				t.Errorf("%s: error %q should wrap %v and name the file", f.ExternalID, f.Err, sentinel)
			}
		}
	})

	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			t.Parallel()
			for _, code := range c.codes() {
				hits := b.searchTop(t, code)
				top := hits[0]
				if top.Path != c.file {
					t.Errorf("%q: top hit %s (%q), want %s", code, top.Path, top.Content, c.file)
					continue
				}
				if !hasToken(top.Content, code) {
					t.Errorf("%q: the top chunk does not hold the code as a token of its own:\n%s", code, top.Content)
				}
				if c.locator != "" && top.Locator != c.locator {
					t.Errorf("%q: locator %q, want %q", code, top.Locator, c.locator)
				}
			}
			top := b.searchTop(t, c.sku)[0]
			for _, glued := range []string{c.sku + c.caf, c.caf + c.amount, c.caf + " " + c.amount + c.sku} {
				if strings.Contains(top.Content, strings.TrimSpace(glued)) {
					t.Errorf("cells ran together: %q in\n%s", glued, top.Content)
				}
			}

			// The glued form is what a broken index would hold: it must match the control better
			// than the real document, and match the real document worse than the real code does.
			gluedHits := b.searchTop(t, c.glued())
			if gluedHits[0].Path != c.gluedFile() {
				t.Errorf("%q: top hit %s, want the glued control %s", c.glued(), gluedHits[0].Path, c.gluedFile())
			}
			i := slices.IndexFunc(gluedHits, func(h rag.Hit) bool { return h.Path == c.file })
			if i >= 0 && gluedHits[i].Score >= top.Score {
				t.Errorf("%q scores %.4f on %s, not below the real code %q (%.4f)", c.glued(), gluedHits[i].Score, c.file, c.sku, top.Score)
			}
		})
	}
}

// TestCorruptedVersionKeepsThePreviousOne indexes a good DOCX and XLSX, overwrites them with
// garbage and a password-protected file, and re-indexes: both are reported, nothing is deleted,
// and their codes are still found in the previous version.
func TestCorruptedVersionKeepsThePreviousOne(t *testing.T) {
	t.Parallel()
	b, first := setupOffice(t)
	cases, root := b.cases, b.root
	if first.Added != 2*len(cases) {
		t.Fatalf("first index: %+v", first)
	}
	docx, xlsx := cases[0], cases[1]
	if docx.file != "tarifa-docx.docx" || xlsx.file != "tarifa-xlsx.xlsx" {
		t.Fatalf("case order changed: %s, %s", docx.file, xlsx.file)
	}
	if err := os.WriteFile(filepath.Join(root, docx.file), []byte("PK\x03\x04 truncado"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "protegido.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, xlsx.file), data, 0o644); err != nil {
		t.Fatal(err)
	}

	rep := b.syncOffice(t)
	var failed []string
	for _, f := range rep.Failed {
		failed = append(failed, f.ExternalID)
	}
	slices.Sort(failed)
	want := []string{"protegido.pdf", "protegido.xlsx", "roto.docx", docx.file, xlsx.file}
	slices.Sort(want)
	if !slices.Equal(failed, want) || rep.Deleted != 0 || rep.Changed != 0 {
		t.Fatalf("second index: failed %v (want %v), deleted %d, changed %d", failed, want, rep.Deleted, rep.Changed)
	}
	for _, c := range []officeCase{docx, xlsx} {
		if top := b.searchTop(t, c.caf)[0]; top.Path != c.file || !hasToken(top.Content, c.caf) {
			t.Errorf("%s: previous version lost: top hit for %q is %s", c.file, c.caf, top.Path)
		}
	}
}
