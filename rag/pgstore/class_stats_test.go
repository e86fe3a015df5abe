package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// checkClassStats fails when the per-class statistics (stats plus pending deltas) differ from
// what the chunks hold now, or a readable chunk's groups have no access class. A withheld chunk
// (no group) has no class (access_classes refuses an empty list), so it counts nowhere.
func checkClassStats(t *testing.T, b *bundle, when string) {
	t.Helper()
	if p := pgstoretest.ClassStatsProblems(t, b.store.Pool()); p != "" {
		t.Errorf("%s: %s", when, p)
	}
}

// TestClassStatsFollowEveryWrite indexes, re-indexes, re-permissions, withholds and deletes
// documents at random and checks the per-class statistics after each step, compaction and a
// rebuild.
func TestClassStatsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 8))
	groups := []string{"everyone", "hr", "eng", "alice@example.com", "domain:example.com"}
	vocab := strings.Fields("vacaciones salario despliegue canario release payroll nómina guía política bonus remote equipo")
	pick := func() []string { return randomGroups(rng, groups, 3) }
	for step := range 40 {
		id := fmt.Sprintf("doc-%d.md", rng.IntN(12))
		switch rng.IntN(5) {
		case 0, 1:
			words := make([]string, 5+rng.IntN(10))
			for i := range words {
				words[i] = vocab[rng.IntN(len(vocab))]
			}
			b.doc(t, "t", id, "Doc "+id, []string{"es", "en"}[rng.IntN(2)], pick(), strings.Join(words, " "), strings.Join(words[:3], " "))
		case 2:
			if err := b.store.SetGroups(ctx, "t", id, pick()); err != nil && !strings.Contains(err.Error(), "not indexed") {
				t.Fatal(err)
			}
		case 3:
			if _, err := b.store.DeleteDocuments(ctx, "t", []string{id}); err != nil {
				t.Fatal(err)
			}
		case 4:
			if err := b.store.WithholdDocument(ctx, "t", id, "no access group"); err != nil && !strings.Contains(err.Error(), "not indexed") {
				t.Fatal(err)
			}
		}
		checkClassStats(t, b, fmt.Sprintf("step %d", step))
	}
	if _, err := b.store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	checkClassStats(t, b, "after compaction")
	var pending int
	if err := b.store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM class_lexeme_delta) + (SELECT count(*) FROM class_corpus_delta)`).Scan(&pending); err != nil || pending != 0 {
		t.Errorf("after compaction %d deltas remain (%v)", pending, err)
	}
	if err := b.store.RebuildClassStats(ctx); err != nil {
		t.Fatal(err)
	}
	checkClassStats(t, b, "after rebuild")
}

// TestSearchFTSIgnoresOtherDocuments checks the full-text arm's scores and terms, for random
// scopes and queries, against a second index that holds only the documents each scope may read.
func TestSearchFTSIgnoresOtherDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 12))
	groups := []string{"everyone", "hr", "eng", "board"}
	vocab := strings.Fields("vacaciones vacation salario salary despliegue deploy canario canary nómina payroll zanzíbar ocelote bonus quetzal release")
	type doc struct {
		id, lang string
		groups   []string
		texts    []string
	}
	var docs []doc
	for d := range 30 {
		g := []string{groups[rng.IntN(len(groups))]}
		if rng.IntN(3) == 0 {
			g = append(g, groups[rng.IntN(len(groups))])
		}
		var texts []string
		for range 1 + rng.IntN(2) {
			texts = append(texts, randomText(rng, vocab, 4+rng.IntN(12)))
		}
		docs = append(docs, doc{fmt.Sprintf("d%02d.md", d), []string{"es", "en", "simple"}[rng.IntN(3)], g, texts})
	}
	// Every fifth document is withheld in the full index (its access could not be resolved): it
	// must count for no scope, as if it were not there.
	withheld := func(d int) bool { return d%5 == 4 }
	full := setup(t)
	for i, d := range docs {
		full.doc(t, "t", d.id, "Doc "+d.id, d.lang, d.groups, d.texts...)
		if withheld(i) {
			if err := full.store.WithholdDocument(ctx, "t", d.id, "no access group"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, scopeGroups := range [][]string{{"hr"}, {"eng", "board"}, {"everyone"}} {
		scope := rag.MustScope(scopeGroups...)
		only := setup(t)
		byChunk := map[int64]string{} // chunk ids differ between the two indexes: compare by document
		for i, d := range docs {
			if !withheld(i) && slices.ContainsFunc(d.groups, scope.Contains) {
				only.doc(t, "t", d.id, "Doc "+d.id, d.lang, d.groups, d.texts...)
			}
		}
		name := func(b *bundle, hits []rag.ArmHit) []string {
			var out []string
			ids := make([]int64, len(hits))
			for i, h := range hits {
				ids[i] = h.ChunkID
			}
			loaded, err := b.store.LoadHits(ctx, ids, scope)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range loaded {
				byChunk[l.ChunkID] = fmt.Sprintf("%s#%s", l.Path, l.Content[:min(12, len(l.Content))])
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s=%.6f", byChunk[h.ChunkID], h.Score))
			}
			slices.Sort(out) // equal scores may tie-break on chunk id
			return out
		}
		for q := range 40 {
			words := make([]string, 1+rng.IntN(3))
			for i := range words {
				words[i] = vocab[rng.IntN(len(vocab))]
				if rng.IntN(5) == 0 {
					words[i] += "x" // a typo: fuzzy expansion
				}
			}
			// Half the queries carry a translated alternative: its words count under the same
			// scope as the asked ones.
			query := rag.FTSQuery{Text: strings.Join(words, " ")}
			if q%2 == 1 {
				alt := make([]string, 1+rng.IntN(3))
				for i := range alt {
					alt[i] = vocab[rng.IntN(len(vocab))]
				}
				query.Alt, query.AltWeight = strings.Join(alt, " "), 0.7
			}
			hitsFull, termsFull, err := full.store.SearchFTS(ctx, query, scope, 20)
			if err != nil {
				t.Fatal(err)
			}
			hitsOnly, termsOnly, err := only.store.SearchFTS(ctx, query, scope, 20)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(termsFull, termsOnly) {
				t.Errorf("scope %v query %d %+v: terms %v, but %v without the other groups' documents", scopeGroups, q, query, termsFull, termsOnly)
			}
			if a, b := name(full, hitsFull), name(only, hitsOnly); !slices.Equal(a, b) {
				t.Errorf("scope %v query %d %+v: hits %v, but %v without the other groups' documents", scopeGroups, q, query, a, b)
			}
		}
	}
}
