package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// mapCache is an in-memory rag.AnswerCache; leaky ignores the scope, as a broken cache would.
type mapCache struct {
	leaky   bool
	entries map[rag.CacheKey]*rag.Answer
}

func (m *mapCache) k(key rag.CacheKey) rag.CacheKey {
	if m.leaky {
		key.Scope = ""
	}
	return key
}

func (m *mapCache) Lookup(_ context.Context, key rag.CacheKey) (*rag.Answer, error) {
	return m.entries[m.k(key)], nil
}

func (m *mapCache) Store(_ context.Context, key rag.CacheKey, ans *rag.Answer) error {
	m.entries[m.k(key)] = ans
	return nil
}

type indexFunc func(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (int64, int64, error)

func (f indexFunc) ReplaceDocument(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (int64, int64, error) {
	return f(ctx, doc, chunks)
}

type embedFunc func(texts []string) [][]float32

func (f embedFunc) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return f(texts), nil
}

func TestRunCache(t *testing.T) {
	t.Parallel()
	next := int64(0)
	index := indexFunc(func(context.Context, rag.Document, []rag.Chunk) (int64, int64, error) { next++; return next, 1, nil })
	emb := embedFunc(func(texts []string) [][]float32 { return make([][]float32, len(texts)) })

	res, err := RunCache(context.Background(), CacheConfig{Cache: &mapCache{entries: map[rag.CacheKey]*rag.Answer{}},
		Index: index, Embedder: emb, Entries: 30, Lookups: 200})
	if err != nil {
		t.Fatalf("RunCache over a correct cache: %v", err)
	}
	if res.Lookups != 200 || res.Entries != 30 || res.HitP95 < res.HitP50 {
		t.Errorf("result %+v", res)
	}

	_, err = RunCache(context.Background(), CacheConfig{Cache: &mapCache{leaky: true, entries: map[rag.CacheKey]*rag.Answer{}},
		Index: index, Embedder: emb, Entries: 30, Lookups: 200})
	if err == nil || !strings.Contains(err.Error(), "served scope") {
		t.Errorf("RunCache over a cache that ignores scopes: err = %v, want the leak reported", err)
	}
}
