package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// bundle is a migrated, empty store in its own schema with the built-in embedder.
type bundle struct {
	store *pgstore.Store
	emb   *hashembed.Embedder
}

func setup(t testing.TB) *bundle {
	t.Helper()
	emb := hashembed.New(0)
	return &bundle{store: pgstoretest.New(t, emb.Info()), emb: emb}
}

// doc indexes one document whose chunks are the given texts (section "S<i>").
func (b *bundle) doc(t *testing.T, source, id, title, lang string, groups []string, texts ...string) int64 {
	t.Helper()
	chunks := make([]rag.Chunk, len(texts))
	for i, text := range texts {
		c := rag.Chunk{Heading: title, Content: text}
		c.Embedding = b.emb.Vector(c.Text())
		chunks[i] = c
	}
	docID, _, err := b.store.ReplaceDocument(context.Background(), rag.Document{
		Source: source, ExternalID: id, Title: title, Lang: lang, UpdatedAt: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC),
		ContentHash: id + "-hash", Groups: groups,
	}, chunks)
	if err != nil {
		t.Fatalf("index %s: %v", id, err)
	}
	if _, err := b.store.CompactStats(context.Background()); err != nil {
		t.Fatal(err)
	}
	return docID
}

func (b *bundle) hybrid() *rag.Hybrid {
	return rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions())
}
