package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// cacheBundle is a migrated, empty store and an answer cache in one schema.
type cacheBundle struct {
	bundle
	cache *pgstore.Cache
}

func setupCache(tb testing.TB, opts pgstore.CacheOptions) *cacheBundle {
	tb.Helper()
	b := setup(tb)
	if opts.ChangeMargin == 0 {
		// The tests index and ask within milliseconds; the margin for a commit's delay would
		// make every abstention they store stale.
		opts.ChangeMargin = time.Microsecond
	}
	return &cacheBundle{bundle: *b, cache: pgstore.NewCache(b.store.Pool(), opts, slog.New(slog.DiscardHandler))}
}

// index indexes a one-chunk document and returns its id and version.
func (b *cacheBundle) index(tb testing.TB, id string, groups []string, text string) (docID, version int64) {
	tb.Helper()
	c := rag.Chunk{Heading: "Doc " + id, Content: text}
	c.Embedding = b.emb.Vector(c.Text())
	docID, version, err := b.store.ReplaceDocument(context.Background(), rag.Document{
		Source: "cache", ExternalID: id, Title: "Doc " + id, Lang: "en",
		UpdatedAt: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), ContentHash: text, Groups: groups,
	}, []rag.Chunk{c})
	if err != nil {
		tb.Fatalf("index %s: %v", id, err)
	}
	return docID, version
}

// answerCiting is an answer whose sources cite the given (document, version) pairs.
func answerCiting(text string, docs ...[2]int64) *rag.Answer {
	a := &rag.Answer{Text: text, Lang: "en", Evidence: 0.8, Usage: rag.Usage{Model: "m", PromptTokens: 120, CompletionTokens: 30}}
	for i, d := range docs {
		a.Sources = append(a.Sources, rag.Source{N: i + 1, Hit: rag.Hit{
			ChunkID: 100 + int64(i), DocumentID: d[0], DocVersion: d[1], Title: "T", Heading: "T > S", Section: "S",
			Locator: "p. 2", Content: "Body " + text, Path: "a/b.md", URL: "https://x/b", Owner: "Ana", Lang: "en",
			UpdatedAt: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), Score: 0.03,
			ArmRank: map[rag.Arm]int{rag.ArmFTS: 1, rag.ArmVector: 3}, ArmScore: map[rag.Arm]float64{rag.ArmFTS: 7.5},
		}})
	}
	return a
}

func key(q string, scope rag.Scope) rag.CacheKey { return rag.NewCacheKey(q, scope, "en") }

func mustStore(tb testing.TB, c *pgstore.Cache, k rag.CacheKey, a *rag.Answer) {
	tb.Helper()
	if err := c.Store(context.Background(), k, a); err != nil {
		tb.Fatalf("store %+v: %v", k, err)
	}
}

func lookup(tb testing.TB, c *pgstore.Cache, k rag.CacheKey) *rag.Answer {
	tb.Helper()
	a, err := c.Lookup(context.Background(), k)
	if err != nil {
		tb.Fatalf("lookup %+v: %v", k, err)
	}
	return a
}

// sameAnswer compares what the cache must keep; times compare with Equal (JSON drops the zone).
func sameAnswer(t *testing.T, got, want *rag.Answer) {
	t.Helper()
	if got.Text != want.Text || got.Lang != want.Lang || got.Abstained != want.Abstained ||
		got.AbstainReason != want.AbstainReason || got.Evidence != want.Evidence || got.Usage != want.Usage {
		t.Fatalf("answer = %+v, want %+v", got, want)
	}
	if len(got.Sources) != len(want.Sources) {
		t.Fatalf("%d sources, want %d", len(got.Sources), len(want.Sources))
	}
	for i := range want.Sources {
		g, w := got.Sources[i], want.Sources[i]
		if !g.UpdatedAt.Equal(w.UpdatedAt) {
			t.Errorf("source %d updated %v, want %v", i, g.UpdatedAt, w.UpdatedAt)
		}
		g.UpdatedAt, w.UpdatedAt = time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("source %d = %+v\nwant %+v", i, g, w)
		}
	}
}

func TestCacheHitAndMiss(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{})
	d1, v1 := b.index(t, "vacations", []string{"hr"}, "Employees get 23 days of vacation.")
	d2, v2 := b.index(t, "leave", []string{"hr", "eng"}, "Parental leave is 16 weeks.")
	scope := rag.MustScope("hr", "eng")
	want := answerCiting("You get 23 days [1] and 16 weeks [2].", [2]int64{d1, v1}, [2]int64{d2, v2})
	mustStore(t, b.cache, key("How many vacation days do I get?", scope), want)

	got := lookup(t, b.cache, key("  how many VACATION days do i get ", scope))
	if got == nil {
		t.Fatal("miss for the same normalized question and scope")
	}
	sameAnswer(t, got, want)

	misses := map[string]rag.CacheKey{
		"other question":  key("How many sick days do I get?", scope),
		"subset scope":    key("How many vacation days do I get?", rag.MustScope("hr")),
		"superset scope":  key("How many vacation days do I get?", rag.MustScope("hr", "eng", "sales")),
		"disjoint scope":  key("How many vacation days do I get?", rag.MustScope("sales")),
		"other language":  rag.NewCacheKey("How many vacation days do I get?", scope, "es"),
		"empty key query": key("???", scope),
	}
	for name, k := range misses {
		t.Run(name, func(t *testing.T) {
			if got := lookup(t, b.cache, k); got != nil {
				t.Errorf("hit %q for key %+v", got.Text, k)
			}
		})
	}

	// A store under the same key replaces the entry.
	replaced := answerCiting("Now 25 days [1].", [2]int64{d1, v1})
	mustStore(t, b.cache, key("how many vacation days do I get", scope), replaced)
	sameAnswer(t, lookup(t, b.cache, key("How many vacation days do I get?", scope)), replaced)

	// Another variant (model or configuration) never sees this variant's entries.
	other := pgstore.NewCache(b.store.Pool(), pgstore.CacheOptions{Variant: "gpt-4o"}, slog.New(slog.DiscardHandler))
	if got := lookup(t, other, key("How many vacation days do I get?", scope)); got != nil {
		t.Errorf("variant gpt-4o served the default variant's answer %q", got.Text)
	}
}

func TestCacheTTL(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{TTL: time.Hour, AbstainTTL: 10 * time.Minute})
	d, v := b.index(t, "doc", []string{"hr"}, "Some text about expenses.")
	scope := rag.MustScope("hr")
	abstention := &rag.Answer{Text: "I couldn't find this in our documentation.", Lang: "en", Abstained: true, AbstainReason: "weak_evidence"}
	mustStore(t, b.cache, key("answer", scope), answerCiting("Expenses [1].", [2]int64{d, v}))
	mustStore(t, b.cache, key("abstention", scope), abstention)

	age := func(q string, by time.Duration) {
		t.Helper()
		_, err := b.store.Pool().Exec(context.Background(), `UPDATE answer_cache SET created_at = now() - $2::interval WHERE query_key = $1`, q, by)
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		query string
		age   time.Duration
		hit   bool
	}{
		{"answer", 59 * time.Minute, true},
		{"abstention", 9 * time.Minute, true},
		{"abstention", 11 * time.Minute, false}, // abstentions expire sooner
		{"answer", 61 * time.Minute, false},
	}
	for _, tc := range tests {
		age(tc.query, tc.age)
		if got := lookup(t, b.cache, key(tc.query, scope)); (got != nil) != tc.hit {
			t.Errorf("%s aged %s: hit = %v, want %v", tc.query, tc.age, got != nil, tc.hit)
		}
	}
	var left int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM answer_cache`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d expired entries left after lookups found them expired, want them deleted", left)
	}
}

func TestCacheInvalidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, b *cacheBundle)
		hit    bool
	}{
		{"unchanged", func(*testing.T, *cacheBundle) {}, true},
		{"an uncited document changes", func(t *testing.T, b *cacheBundle) { b.index(t, "other", []string{"hr"}, "New text.") }, true},
		{"cited document re-indexed", func(t *testing.T, b *cacheBundle) { b.index(t, "cited", []string{"hr"}, "Changed text.") }, false},
		{"cited document deleted", func(t *testing.T, b *cacheBundle) {
			if _, err := b.store.DeleteDocuments(context.Background(), "cache", []string{"cited"}); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"cited document's groups change", func(t *testing.T, b *cacheBundle) {
			if err := b.store.SetGroups(context.Background(), "cache", "cited", []string{"hr", "board"}); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupCache(t, pgstore.CacheOptions{})
			d, v := b.index(t, "cited", []string{"hr"}, "Original text.")
			d2, v2 := b.index(t, "also-cited", []string{"hr"}, "Other cited text.")
			b.index(t, "other", []string{"hr"}, "Uncited text.")
			scope := rag.MustScope("hr")
			mustStore(t, b.cache, key("q", scope), answerCiting("A [1] [2].", [2]int64{d2, v2}, [2]int64{d, v}))
			tc.change(t, b)
			if got := lookup(t, b.cache, key("q", scope)); (got != nil) != tc.hit {
				t.Errorf("hit = %v, want %v", got != nil, tc.hit)
			}
		})
	}
}

// TestCacheAbstentionDependsOnItsTopHit: an abstention may name the top hit's owner, so that
// document's version guards the entry and a hit gives it back as the only search hit.
func TestCacheAbstentionDependsOnItsTopHit(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{})
	ctx := context.Background()
	d, v := b.index(t, "payroll", []string{"hr"}, "Payroll closes on the 25th.")
	scope := rag.MustScope("hr")
	top := rag.Hit{ChunkID: 7, DocumentID: d, DocVersion: v, Title: "Payroll", Owner: "Ana (payroll)"}
	abstention := &rag.Answer{Text: "I couldn't find this in our documentation. You could ask Ana (payroll).", Lang: "en",
		Abstained: true, AbstainReason: "weak_evidence", Search: &rag.SearchResult{Hits: []rag.Hit{top, {ChunkID: 8, DocumentID: 999}}}}
	mustStore(t, b.cache, key("bonus dates", scope), abstention)

	got := lookup(t, b.cache, key("bonus dates", scope))
	if got == nil || got.Search == nil || len(got.Search.Hits) != 1 || got.Search.Hits[0].DocumentID != d || got.Search.Hits[0].Owner != top.Owner {
		t.Fatalf("cached abstention = %+v, want its top hit back as the only search hit", got)
	}
	if err := b.store.SetGroups(ctx, "cache", "payroll", []string{"board"}); err != nil {
		t.Fatal(err)
	}
	if got := lookup(t, b.cache, key("bonus dates", scope)); got != nil {
		t.Errorf("served an abstention naming the owner of a document whose groups changed: %q", got.Text)
	}
}

func TestCachePruneRemovesStaleEntries(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{PruneEvery: -1})
	ctx := context.Background()
	keep, kv := b.index(t, "keep", []string{"hr"}, "Kept.")
	gone, gv := b.index(t, "gone", []string{"hr"}, "Deleted later.")
	scope := rag.MustScope("hr")
	mustStore(t, b.cache, key("kept", scope), answerCiting("K [1].", [2]int64{keep, kv}))
	mustStore(t, b.cache, key("stale", scope), answerCiting("G [1].", [2]int64{gone, gv}))
	if _, err := b.store.DeleteDocuments(ctx, "cache", []string{"gone"}); err != nil {
		t.Fatal(err)
	}
	n, err := b.cache.Prune(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 entry deleted", n, err)
	}
	var entries, cited int
	if err := b.store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM answer_cache), (SELECT count(*) FROM answer_cache_documents)`).Scan(&entries, &cited); err != nil {
		t.Fatal(err)
	}
	if entries != 1 || cited != 1 || lookup(t, b.cache, key("kept", scope)) == nil {
		t.Errorf("after prune: %d entries, %d cited rows, want the kept entry only", entries, cited)
	}
}

// TestCacheRandomizedIsolation stores answers to a few questions under many random scopes of 8
// groups and looks up random (scope, question) pairs: a hit is always the entry stored under
// exactly that scope and question, and every stored pair hits.
func TestCacheRandomizedIsolation(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{PruneEvery: -1})
	rng := rand.New(rand.NewPCG(3, 14))
	groups := []string{"everyone", "hr", "finance", "engineering", "sales", "board", "legal", "ops"}
	questions := []string{"vacation days?", "¿Días de vacaciones?", "expense limit", "VPN setup", "on-call rotation", "bonus policy"}
	var docs [][2]int64
	for i := range 5 {
		id, v := b.index(t, fmt.Sprintf("d%d", i), []string{groups[i]}, fmt.Sprintf("Text %d.", i))
		docs = append(docs, [2]int64{id, v})
	}
	randomScope := func() rag.Scope { return rag.MustScope(randomGroups(rng, groups, 3)...) }
	stored := map[rag.CacheKey]string{}
	for range 200 {
		scope, q := randomScope(), questions[rng.IntN(len(questions))]
		text := "answer for " + scope.Key() + " | " + q + " [1]"
		k := key(q, scope)
		mustStore(t, b.cache, k, answerCiting(text, docs[rng.IntN(len(docs))]))
		stored[k] = text
	}
	hits := 0
	check := func(k rag.CacheKey) {
		t.Helper()
		got := lookup(t, b.cache, k)
		want, ok := stored[k]
		switch {
		case got == nil && ok:
			t.Fatalf("miss for stored key %+v", k)
		case got != nil && !ok:
			t.Fatalf("key %+v was never stored but got %q", k, got.Text)
		case got != nil && got.Text != want:
			t.Fatalf("key %+v got %q, want %q", k, got.Text, want)
		case got != nil:
			hits++
		}
	}
	for k := range stored {
		check(k)
	}
	for range 400 {
		check(key(questions[rng.IntN(len(questions))], randomScope()))
	}
	if hits < len(stored) {
		t.Fatalf("%d hits for %d stored keys", hits, len(stored))
	}
	// Scopes repeat questions across many scopes, so the test exercises same-question isolation.
	perQuestion := map[string]int{}
	for k := range stored {
		perQuestion[k.Query]++
	}
	for q, n := range perQuestion {
		if n < 5 {
			t.Errorf("question %q stored under only %d scopes; the test needs many", q, n)
		}
	}
}

func BenchmarkCacheLookupHit(b *testing.B) {
	cb := setupCache(b, pgstore.CacheOptions{PruneEvery: -1})
	scope := rag.MustScope("everyone", "eng")
	var cites [][2]int64
	for i := range 5 {
		id, v := cb.index(b, fmt.Sprintf("d%d", i), []string{"eng"}, strings.Repeat("word ", 200))
		cites = append(cites, [2]int64{id, v})
	}
	const n = 200
	for i := range n {
		a := answerCiting(strings.Repeat("A sentence of an answer [1]. ", 12), cites...)
		mustStore(b, cb.cache, key(fmt.Sprintf("question number %d", i), scope), a)
	}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		a, err := cb.cache.Lookup(ctx, key(fmt.Sprintf("question number %d", i%n), scope))
		if err != nil || a == nil {
			b.Fatalf("lookup %d: %v, %v", i, a, err)
		}
	}
}
