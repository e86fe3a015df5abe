package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

func seedCorpus(t *testing.T, b *bundle) {
	b.doc(t, "t", "vacaciones.md", "Política de vacaciones", "es", []string{"everyone"},
		"Cada empleado tiene derecho a 15 días hábiles de vacaciones por año trabajado. Las vacaciones se solicitan con dos semanas de antelación.",
		"Las vacaciones acumuladas no pueden superar dos periodos. El saldo se consulta en el portal de personas.")
	b.doc(t, "t", "incidents.md", "Incident response", "en", []string{"engineering"},
		"ERR_4402 means the payment gateway timed out. Page the on-call engineer and retry the settlement job.",
		"ERR_5120 means the inventory feed is stale; restart the importer.")
	b.doc(t, "t", "salarios.md", "Bandas salariales", "es", []string{"hr"},
		"La banda salarial B7 tiene un salario base de 5.440.000 COP al mes. El Plan Cóndor de retención aplica a la banda B7.")
	b.doc(t, "t", "ferias.md", "Ferias 2025", "es", []string{"everyone"},
		"En 2025 participaremos en la feria de agronegocios de Bogotá con nuestro café de origen.",
		"El stand de la feria de agronegocios tendrá catas guiadas de café.")
	b.doc(t, "t", "remote.md", "Remote work policy", "en", []string{"everyone"},
		"Employees may work remotely up to three days per week with their manager's approval.",
		"Remote workers must use the company VPN and keep their laptop encrypted.")
}

func topPath(t *testing.T, res *rag.SearchResult) string {
	t.Helper()
	if len(res.Hits) == 0 {
		t.Fatalf("no hits (terms %v)", res.Trace.Terms)
	}
	return res.Hits[0].Path
}

func TestHybridFindsCodesInflectionsAndTypos(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	h := b.hybrid()
	all := rag.MustScope("everyone", "engineering", "hr")
	cases := []struct {
		query, want string
	}{
		{"¿Qué significa ERR_4402?", "incidents.md"},
		{"5.440.000", "salarios.md"},
		{"¿Cuántos días de vacación tengo?", "vacaciones.md"},
		{"feria de agronegosios", "ferias.md"},
		{"can I work from home three days a week", "remote.md"},
		{"banda B7 plan condor", "salarios.md"},
	}
	for _, c := range cases {
		res, err := h.Search(context.Background(), rag.SearchRequest{Query: c.query, Scope: all})
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if got := topPath(t, res); got != c.want {
			t.Errorf("%q: top hit %s, want %s (terms %v)", c.query, got, c.want, res.Trace.Terms)
		}
	}
}

func TestSearchNeverReturnsChunksOutsideScope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	h := b.hybrid()
	everyone := rag.MustScope("everyone")
	for _, q := range []string{"5.440.000 banda salarial B7", "ERR_4402 payment gateway", "plan cóndor retención"} {
		res, err := h.Search(context.Background(), rag.SearchRequest{Query: q, Scope: everyone})
		if err != nil {
			t.Fatal(err)
		}
		for _, hit := range res.Hits {
			if hit.Path == "salarios.md" || hit.Path == "incidents.md" {
				t.Errorf("%q returned %s to scope everyone", q, hit.Path)
			}
		}
		for arm, hits := range res.Trace.Arms {
			if len(hits) > 0 {
				loaded, err := b.store.LoadHits(context.Background(), []int64{hits[0].ChunkID}, everyone)
				if err != nil || len(loaded) != 1 {
					t.Errorf("%s arm returned chunk %d that the scope cannot load (%v)", arm, hits[0].ChunkID, err)
				}
			}
		}
	}
}

func TestEmptyScopeIsAnError(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	ctx := context.Background()
	if _, err := b.hybrid().Search(ctx, rag.SearchRequest{Query: "vacaciones"}); !errors.Is(err, rag.ErrNoScope) {
		t.Errorf("hybrid with empty scope: %v, want ErrNoScope", err)
	}
	if _, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "vacaciones"}, rag.Scope{}, 10); !errors.Is(err, rag.ErrNoScope) {
		t.Errorf("fts with empty scope: %v, want ErrNoScope", err)
	}
	if _, err := b.store.SearchVector(ctx, b.emb.Vector("vacaciones"), rag.Scope{}, 10); !errors.Is(err, rag.ErrNoScope) {
		t.Errorf("vector with empty scope: %v, want ErrNoScope", err)
	}
	if _, err := b.store.LoadHits(ctx, []int64{1}, rag.Scope{}); !errors.Is(err, rag.ErrNoScope) {
		t.Errorf("load with empty scope: %v, want ErrNoScope", err)
	}
}

// TestVectorVariantsShareFilterAndOrder runs the indexed and the exact vector search over the
// same corpus: both refuse an empty scope and a vector of the wrong dimension, both return only
// chunks the scope may read, and on a corpus this small the index finds the exact neighbours.
func TestVectorVariantsShareFilterAndOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	ctx := context.Background()
	vec := b.emb.Vector("banda salarial B7 plan cóndor")
	variants := map[string]func(context.Context, []float32, rag.Scope, int) ([]rag.ArmHit, error){
		"indexed": b.store.SearchVector,
		"exact":   b.store.SearchVectorExact,
	}
	ids := map[string][]int64{}
	for name, search := range variants {
		if _, err := search(ctx, vec, rag.Scope{}, 5); !errors.Is(err, rag.ErrNoScope) {
			t.Errorf("%s with empty scope: %v, want ErrNoScope", name, err)
		}
		if _, err := search(ctx, vec[:len(vec)-1], rag.MustScope("everyone"), 5); err == nil {
			t.Errorf("%s accepted a vector of the wrong dimension", name)
		}
		everyone := rag.MustScope("everyone")
		hits, err := search(ctx, vec, everyone, 20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(hits) == 0 {
			t.Fatalf("%s: no hits", name)
		}
		for i, h := range hits {
			if h.Rank != i+1 {
				t.Errorf("%s: hit %d has rank %d", name, i, h.Rank)
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("%s: hit %d scores %f above the one before it (%f)", name, i, h.Score, hits[i-1].Score)
			}
			if loaded, err := b.store.LoadHits(ctx, []int64{h.ChunkID}, everyone); err != nil || len(loaded) != 1 {
				t.Errorf("%s returned chunk %d that scope everyone cannot load (%v)", name, h.ChunkID, err)
			}
			ids[name] = append(ids[name], h.ChunkID)
		}
	}
	if !slices.Equal(ids["indexed"], ids["exact"]) {
		t.Errorf("indexed %v, exact %v: want the same neighbours on a small corpus", ids["indexed"], ids["exact"])
	}
}

func TestLexemeStatsFollowInsertsAndDeletes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		var mismatches int
		err := b.store.Pool().QueryRow(ctx, `
			WITH truth AS (
				SELECT l AS lexeme, count(*)::int AS df FROM chunks, unnest(tsvector_to_array(tsv)) l GROUP BY l
			), known AS (
				SELECT lexeme, sum(df)::int AS df FROM (SELECT lexeme, df FROM lexeme_stats UNION ALL SELECT lexeme, df FROM lexeme_delta) x
				GROUP BY lexeme HAVING sum(df) <> 0
			)
			SELECT count(*) FROM truth FULL JOIN known USING (lexeme)
			WHERE truth.df IS DISTINCT FROM known.df`).Scan(&mismatches)
		if err != nil {
			t.Fatal(err)
		}
		if mismatches != 0 {
			t.Errorf("%s: %d lexemes have a wrong document frequency", when, mismatches)
		}
		var n, real int64
		if err := b.store.Pool().QueryRow(ctx, `SELECT (SELECT sum(chunks)::bigint FROM (SELECT chunks FROM corpus_stats WHERE kind='t' UNION ALL SELECT chunks FROM corpus_delta WHERE kind='t') x), (SELECT count(*) FROM chunks)`).Scan(&n, &real); err != nil {
			t.Fatal(err)
		}
		if n != real {
			t.Errorf("%s: corpus_stats says %d chunks, table has %d", when, n, real)
		}
	}
	check("after insert")
	b.doc(t, "t", "ferias.md", "Ferias 2026", "es", []string{"everyone"}, "Solo una feria en 2026.")
	check("after replace")
	if _, err := b.store.DeleteDocuments(ctx, "t", []string{"vacaciones.md", "remote.md"}); err != nil {
		t.Fatal(err)
	}
	check("after delete")
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	check("after compaction")
	var pending int
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM lexeme_delta`).Scan(&pending); err != nil || pending != 0 {
		t.Errorf("after compaction %d deltas remain (%v)", pending, err)
	}
}

func TestSetGroupsChangesAccessWithoutReembedding(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedCorpus(t, b)
	ctx := context.Background()
	everyone := rag.MustScope("everyone")
	find := func() bool {
		res, err := b.hybrid().Search(ctx, rag.SearchRequest{Query: "ERR_4402", Scope: everyone})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Hits) > 0 && res.Hits[0].Path == "incidents.md"
	}
	if find() {
		t.Fatal("engineering document visible to everyone before the change")
	}
	var before string
	b.store.Pool().QueryRow(ctx, `SELECT string_agg(embedding::text, ';' ORDER BY position) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'incidents.md'`).Scan(&before)
	if err := b.store.SetGroups(ctx, "t", "incidents.md", []string{"engineering", "everyone"}); err != nil {
		t.Fatal(err)
	}
	if !find() {
		t.Error("after SetGroups the document is still hidden from everyone")
	}
	var after string
	b.store.Pool().QueryRow(ctx, `SELECT string_agg(embedding::text, ';' ORDER BY position) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'incidents.md'`).Scan(&after)
	if before == "" || before != after {
		t.Error("SetGroups changed or lost the embeddings")
	}
}

func TestFuzzyExpansionOnlyOffersWordsTheScopeMayRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.doc(t, "t", "secreto.md", "Plan", "es", []string{"board"}, "El proyecto Quetzalcoatl se lanzará en marzo.")
	b.doc(t, "t", "publico.md", "Noticias", "es", []string{"everyone"}, "La cafetería abre a las ocho.")
	ctx := context.Background()
	_, terms, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "proyecto quetzalcoal"}, rag.MustScope("everyone"), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range terms {
		if strings.Contains(term, "quetzalcoatl") {
			t.Errorf("the misspelling was corrected to a word only the board's document holds: %v", terms)
		}
	}
	_, terms, err = b.store.SearchFTS(ctx, rag.FTSQuery{Text: "proyecto quetzalcoal"}, rag.MustScope("board"), 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, term := range terms {
		found = found || strings.Contains(term, "quetzalcoatl")
	}
	if !found {
		t.Errorf("the board's own search did not correct the misspelling: %v", terms)
	}
}

// TestFuzzyPoolIsTakenFromWhatTheScopeMayRead is issue 22, item 9: the board's document holds
// 35 words closer to the misspelling than the one word everyone may read. The pool of nearest
// words is taken among what the asker may read, so everyone still gets the correction (taken
// from the whole vocabulary first, the board's words filled it and left nothing).
func TestFuzzyPoolIsTakenFromWhatTheScopeMayRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var near []string
	for _, c1 := range "bcdfg" {
		for _, c2 := range "hjkmnpq" {
			near = append(near, "zorblatix"+string(c1)+string(c2))
		}
	}
	b.doc(t, "t", "board.md", "Board", "en", []string{"board"}, "Codes: "+strings.Join(near, " ")+".")
	b.doc(t, "t", "open.md", "Open", "en", []string{"everyone"}, "The zorblatik opens at eight.")
	ctx := context.Background()
	_, terms, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "zorblatix"}, rag.MustScope("everyone"), 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, term := range terms {
		found = found || strings.Contains(term, "zorblatik")
		if strings.Contains(term, "zorblatixb") {
			t.Fatalf("corrected to a word only the board's document holds: %v", terms)
		}
	}
	if !found {
		t.Fatalf("the misspelling was not corrected to the word everyone may read: %v", terms)
	}
}
