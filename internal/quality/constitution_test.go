package quality_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// articleFile matches the constitution tree's article files: "03. Artículo 99.md".
var articleFile = regexp.MustCompile(`^\d+\. Artículo (\d+)\.md$`)

// constitutionSet indexes the Spanish Constitution tree (one Markdown file per article) as
// `cita index` would and asks, for every article, the references people type: "art. 99" and
// "artículo 99"; the one relevant document is the article's file.
func constitutionSet(t *testing.T, root string) *eval.Dataset {
	t.Helper()
	ds := &eval.Dataset{Name: "constitucion-es", Qrels: map[string]map[string]int{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m := articleFile.FindStringSubmatch(d.Name())
		if m == nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, form := range []string{"art. %s", "artículo %s"} {
			id := strings.Replace(form, "%s", m[1], 1)
			ds.Queries = append(ds.Queries, eval.Query{ID: id, Text: id})
			ds.Qrels[id] = map[string]int{filepath.ToSlash(rel): 1}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Queries) < 300 {
		t.Fatalf("found %d article questions under %s, want the constitution's 169 articles twice", len(ds.Queries), root)
	}
	return ds
}

// TestExactReferencesOnTheConstitution: on exact article references, hybrid search is never
// below the better of its two arms.
func TestExactReferencesOnTheConstitution(t *testing.T) {
	root := sharedDir(t, "corpus/constitucion-es")
	ds := constitutionSet(t, root)
	ctx := context.Background()
	ix := newIndex(t, translator(t))
	if _, err := evalindex.Folder(ctx, ix.store, ix.emb, ix.logger, "constitution", root, []string{"eval"}); err != nil {
		t.Fatal(err)
	}
	checkNotBelowBetterArm(t, ctx, ix, ds)
}

// checkNotBelowBetterArm runs ds in every mode, logs the figures, and fails when hybrid
// nDCG@10 is below the better arm's.
func checkNotBelowBetterArm(t *testing.T, ctx context.Context, ix *index, ds *eval.Dataset) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	for _, mode := range []string{"fts", "vector", "hybrid"} {
		m, err := eval.Run(ctx, ds, ix.search, rag.MustScope("eval"), mode, nil)
		if err != nil {
			t.Fatal(err)
		}
		got[mode] = m.NDCG10
		t.Logf("%s %-6s nDCG@10 %.4f Recall@10 %.4f MRR@10 %.4f Recall@100 %.4f", ds.Name, mode, m.NDCG10, m.Recall10, m.MRR10, m.Recall100)
	}
	if best := max(got["fts"], got["vector"]); got["hybrid"] < best {
		t.Errorf("%s: hybrid nDCG@10 %.4f is below the better arm (%.4f)", ds.Name, got["hybrid"], best)
	}
	return got
}
