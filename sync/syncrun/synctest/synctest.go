// Package synctest gives sync tests a real, migrated index in its own schema, an embedder that
// counts its calls and can be made to fail, and a runner wired to both. Import it from tests only.
package synctest

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/syncrun"
)

// Embedder wraps the built-in embedder, counting calls and texts. When Fail is set, Embed
// returns its error instead of vectors.
type Embedder struct {
	inner *hashembed.Embedder
	calls atomic.Int64
	texts atomic.Int64
	mu    sync.Mutex
	fail  error
}

// Embed implements rag.Embedder.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	e.mu.Lock()
	fail := e.fail
	e.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	e.texts.Add(int64(len(texts)))
	return e.inner.Embed(ctx, texts)
}

// Fail makes every later Embed call return err (nil restores normal behaviour).
func (e *Embedder) Fail(err error) {
	e.mu.Lock()
	e.fail = err
	e.mu.Unlock()
}

// Texts returns how many texts were embedded successfully so far.
func (e *Embedder) Texts() int64 { return e.texts.Load() }

// Calls returns how many Embed calls were made so far.
func (e *Embedder) Calls() int64 { return e.calls.Load() }

// Index is a fresh index with its runner.
type Index struct {
	Store    *pgstore.Store
	Embedder *Embedder
	Runner   *syncrun.Runner
	Search   *rag.Hybrid
	ConnStr  string // connection string of the schema, for a second "replica"
	Schema   string
}

// New returns a migrated, empty index in a new schema, dropped when the test ends.
func New(t testing.TB) *Index {
	t.Helper()
	cs, schema := testdb.Schema(t)
	ix := open(t, cs, schema)
	ix.ConnStr, ix.Schema = cs, schema
	return ix
}

// Replica opens a second pool and runner on the same schema, as another replica would.
func (ix *Index) Replica(t testing.TB) *Index {
	t.Helper()
	r := open(t, ix.ConnStr, ix.Schema)
	r.ConnStr, r.Schema = ix.ConnStr, ix.Schema
	return r
}

func open(t testing.TB, cs, schema string) *Index {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(pool.Close)
	emb := &Embedder{inner: hashembed.New(0)}
	store, err := pgstore.New(pool, emb.inner.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	return &Index{
		Store: store, Embedder: emb,
		Runner: syncrun.New(pool, store, emb, indexer.Options{}, logger),
		Search: rag.NewHybrid(store, emb, rag.DefaultHybridOptions()),
	}
}

// Docs returns the source's indexed documents by external id.
func (ix *Index) Docs(t testing.TB, source string) map[string]rag.DocumentState {
	t.Helper()
	docs, err := ix.Store.Documents(context.Background(), source)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// Answerable reports whether a search for query in scope finds a chunk of the document.
func (ix *Index) Answerable(t testing.TB, query string, scope rag.Scope, docID int64) bool {
	t.Helper()
	res, err := ix.Search.Search(context.Background(), rag.SearchRequest{Query: query, Scope: scope, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.DocumentID == docID {
			return true
		}
	}
	return false
}

// MustRun runs one pass and fails the test on an error.
func (ix *Index) MustRun(t testing.TB, src syncrun.Source, ro syncrun.RunOptions) syncrun.Result {
	t.Helper()
	res, err := ix.Runner.Run(context.Background(), src, ro)
	if err != nil {
		t.Fatalf("sync %s: %v", src.Name, err)
	}
	return res
}
