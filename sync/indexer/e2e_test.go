package indexer_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/rewrite"
	"github.com/citahq/cita/sync/indexer"
)

type bundle struct {
	store *pgstore.Store
	emb   *hashembed.Embedder
	ix    *indexer.Indexer
	rules config.AccessRules
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	rules, err := config.LoadAccessRules("../../testdata/corpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return &bundle{store: store, emb: emb, ix: indexer.New(store, emb, indexer.Options{}, logger), rules: rules}
}

func (b *bundle) sync(t *testing.T, root string) *indexer.Report {
	t.Helper()
	items, complete, err := indexer.ListFolder(context.Background(), root, b.rules.GroupsFor)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.ix.Sync(context.Background(), "corpus", items, complete)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

type sampleQuestion struct {
	ID         string   `json:"id"`
	Question   string   `json:"question"`
	Groups     []string `json:"groups"`
	ExpectPath string   `json:"expect_path"`
	ExpectText string   `json:"expect_text"`
	History    []string `json:"history"`
	Kind       string   `json:"kind"`
	Note       string   `json:"note"`
}

func loadQuestions(t *testing.T) []sampleQuestion {
	f, err := os.Open("../../testdata/sample-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []sampleQuestion
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q sampleQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	return qs
}

// TestSampleCorpusEndToEnd runs the shipped corpus through extraction, chunking, indexing and
// hybrid retrieval together, then asks the sample questions: each answerable one finds its
// document in the top five, and no question ever sees a document outside the asker's groups.
func TestSampleCorpusEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rep := b.sync(t, "../../testdata/corpus")
	if len(rep.Failed) > 0 || rep.Added != rep.Listed || rep.Listed < 30 {
		t.Fatalf("first index: %+v", rep)
	}
	search := rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions())
	found, answerable := 0, 0
	for _, q := range loadQuestions(t) {
		if len(q.History) > 0 {
			continue // follow-ups need the rewriter: tested with the pipeline
		}
		scope := rag.MustScope(q.Groups...)
		res, err := search.Search(context.Background(), rag.SearchRequest{Query: q.Question, Scope: scope, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			groups := b.rules.GroupsFor(h.Path)
			ok := false
			for _, g := range groups {
				ok = ok || scope.Contains(g)
			}
			if !ok {
				t.Errorf("%s: %q returned %s (groups %v) to scope %v", q.ID, q.Question, h.Path, groups, scope)
			}
		}
		if q.ExpectPath == "" {
			continue
		}
		answerable++
		hit := false
		for _, h := range res.Hits {
			hit = hit || h.Path == q.ExpectPath
		}
		if hit {
			found++
		} else {
			t.Logf("%s (%s): %q did not find %s in the top 5", q.ID, q.Kind, q.Question, q.ExpectPath)
		}
	}
	if answerable == 0 || float64(found)/float64(answerable) < 0.9 {
		t.Errorf("found the expected document for %d of %d questions, want at least 90%%", found, answerable)
	}
	t.Logf("found %d of %d expected documents in the top 5", found, answerable)
}

// TestReindexSkipsUnchangedAndRemovesDeleted copies the corpus, re-indexes it unchanged, then
// edits, deletes and re-permissions files.
func TestReindexSkipsUnchangedAndRemovesDeleted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("../../testdata/corpus")); err != nil {
		t.Fatal(err)
	}
	first := b.sync(t, root)
	again := b.sync(t, root)
	if again.Unchanged != first.Listed || again.Added+again.Changed+again.Deleted+again.Chunks != 0 {
		t.Fatalf("unchanged re-index did work: %+v", again)
	}
	edited := filepath.Join(root, "handbook", "remote-work-policy.md")
	data, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, append(data, []byte("\n\nThe Zanzibar exception allows remote work from islands.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "handbook", "oficinas.md")); err != nil {
		t.Fatal(err)
	}
	rep := b.sync(t, root)
	if rep.Changed != 1 || rep.Deleted != 1 || rep.Unchanged != first.Listed-2 {
		t.Fatalf("after edit+delete: %+v", rep)
	}
	search := rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions())
	res, err := search.Search(context.Background(), rag.SearchRequest{Query: "Zanzibar exception", Scope: rag.MustScope("everyone")})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "handbook/remote-work-policy.md" {
		t.Fatalf("edited text not found: %v %+v", err, res)
	}
	docs, err := b.store.Documents(context.Background(), "corpus")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := docs["handbook/oficinas.md"]; ok {
		t.Error("deleted file is still indexed")
	}
	// A partial listing deletes nothing.
	items, _, err := indexer.ListFolder(context.Background(), root, b.rules.GroupsFor)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = b.ix.Sync(context.Background(), "corpus", items[:len(items)/2], false)
	if err != nil || rep.Deleted != 0 {
		t.Fatalf("partial listing deleted %d documents (%v)", rep.Deleted, err)
	}
}

// TestSampleQuestionsThroughPipeline asks the sample corpus's follow-ups, conflicts and
// unanswerable questions through the offline pipeline (rewriter, hybrid search, guard,
// extractive answer, citation check).
func TestSampleQuestionsThroughPipeline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if rep := b.sync(t, "../../testdata/corpus"); len(rep.Failed) > 0 {
		t.Fatalf("index: %+v", rep.Failed)
	}
	p := rag.NewPipeline(rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions()), rag.Extractive{}, rewrite.Offline{}, rag.PipelineOptions{})
	for _, q := range loadQuestions(t) {
		question := rag.Question{Text: q.Question, Scope: rag.MustScope(q.Groups...)}
		for _, h := range q.History {
			question.History = append(question.History, rag.Turn{Role: "user", Text: h})
		}
		ans, err := p.Answer(context.Background(), question, nil)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		cites := func(path string) bool {
			for _, s := range ans.Sources {
				if s.Path == path {
					return true
				}
			}
			return false
		}
		switch q.Kind {
		case "followup":
			if ans.Abstained || !cites(q.ExpectPath) {
				t.Errorf("%s follow-up %q (rewritten %q): want a citation of %s, got abstained=%v %v",
					q.ID, q.Question, ans.StandaloneQuery, q.ExpectPath, ans.Abstained, ans.Sources)
			}
		case "conflict":
			if strings.Contains(q.Note, "over English documents") {
				// Offline, a Spanish question shares almost no words with English documents; the
				// guard abstains. A multilingual embedding model is what bridges languages.
				continue
			}
			if !cites(q.ExpectPath) {
				t.Errorf("%s conflict %q: the newer source %s is not cited: %s", q.ID, q.Question, q.ExpectPath, ans.Text)
			}
			if cites("handbook/travel-policy-2023.md") && !strings.Contains(ans.Text, "disagree") && !strings.Contains(ans.Text, "no coinciden") {
				t.Errorf("%s: both versions cited without naming the conflict: %s", q.ID, ans.Text)
			}
		case "injection":
			if q.ID == "q50" && !strings.Contains(ans.Text, q.ExpectText) {
				t.Errorf("%s: answer lacks %q: %s", q.ID, q.ExpectText, ans.Text)
			}
		case "unanswerable":
			if strings.Contains(q.Question, "Tokyo") && !ans.Abstained {
				t.Errorf("%s: %q answered instead of abstaining: %s", q.ID, q.Question, ans.Text)
			}
		}
		if ans.Abstained && !strings.HasPrefix(ans.Text, rag.NotFoundText(ans.Lang, "")) {
			t.Errorf("%s: abstention text %q", q.ID, ans.Text)
		}
	}
}

// TestFirstIndexBuildsTheVectorIndexOnceAtTheEnd checks the bulk path: a first index drops the
// model's HNSW index, loads, and builds it again, so vector search works after the run.
func TestFirstIndexBuildsTheVectorIndexOnceAtTheEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ix := indexer.New(b.store, b.emb, indexer.Options{BulkThreshold: 5}, slog.New(slog.DiscardHandler))
	items, complete, err := indexer.ListFolder(ctx, "../../testdata/corpus", b.rules.GroupsFor)
	if err != nil {
		t.Fatal(err)
	}
	hnswOID := func() (oid uint32) {
		t.Helper()
		if err := b.store.Pool().QueryRow(ctx, `SELECT c.oid FROM pg_class c JOIN pg_am a ON a.oid = c.relam
			WHERE a.amname = 'hnsw' AND c.relnamespace = current_schema()::regnamespace`).Scan(&oid); err != nil {
			t.Fatal(err)
		}
		return oid
	}
	before := hnswOID()
	if _, err := ix.Sync(ctx, "corpus", items, complete); err != nil {
		t.Fatal(err)
	}
	if hnswOID() == before {
		t.Error("the first index kept the HNSW index instead of building it after loading")
	}
	if n := hnswIndexes(t, b.store.Pool()); n != 1 {
		t.Fatalf("%d HNSW indexes after the first index, want 1", n)
	}
	hits, err := b.store.SearchVector(ctx, b.emb.Vector("remote work VPN laptop"), rag.MustScope("everyone"), 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("vector search after the bulk load: %v, %d hits", err, len(hits))
	}
	// The bulk load skipped the statistics triggers; the rebuild at its end must leave them
	// exact, and later (non-bulk) writes must keep them so.
	checkStats := func(when string) {
		t.Helper()
		var wrong int
		if err := b.store.Pool().QueryRow(ctx, `
			WITH truth AS (SELECT l AS lexeme, count(*)::int AS df FROM chunks, unnest(tsvector_to_array(tsv)) l GROUP BY l),
			known AS (SELECT lexeme, sum(df)::int AS df FROM (SELECT lexeme, df FROM lexeme_stats UNION ALL SELECT lexeme, df FROM lexeme_delta) x GROUP BY lexeme HAVING sum(df) <> 0)
			SELECT count(*) FROM truth FULL JOIN known USING (lexeme) WHERE truth.df IS DISTINCT FROM known.df`).Scan(&wrong); err != nil {
			t.Fatal(err)
		}
		var counted, real int64
		if err := b.store.Pool().QueryRow(ctx, `SELECT (SELECT sum(chunks)::bigint FROM (SELECT chunks FROM corpus_stats WHERE kind = 't' UNION ALL SELECT chunks FROM corpus_delta WHERE kind = 't') x), (SELECT count(*) FROM chunks)`).Scan(&counted, &real); err != nil {
			t.Fatal(err)
		}
		if wrong != 0 || counted != real {
			t.Errorf("%s: %d lexemes with a wrong document frequency; corpus stats count %d chunks, table has %d", when, wrong, counted, real)
		}
	}
	checkStats("after the bulk load")
	if _, err := b.store.DeleteDocuments(ctx, "corpus", []string{"handbook/oficinas.md"}); err != nil {
		t.Fatal(err)
	}
	checkStats("after a later delete")
}
