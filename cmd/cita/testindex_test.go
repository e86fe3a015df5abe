package main

import (
	"testing"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// testDoc is one document of a test index, held in one chunk.
type testDoc struct {
	path, title, lang string
	groups            []string
	text              string
}

// indexedSchema indexes docs, in order, into a fresh schema with the built-in embedder and
// returns the schema's connection string. The pool it used is closed: cita's commands open
// their own.
func indexedSchema(t *testing.T, docs ...testDoc) string {
	t.Helper()
	pool, cs := pgstoretest.Open(t)
	emb := hashembed.New(0)
	store := pgstoretest.OnPool(t, pool, emb.Info())
	for _, d := range docs {
		pgstoretest.Put(t, store, emb, rag.Document{Source: "test", ExternalID: d.path, Title: d.title, Lang: d.lang,
			UpdatedAt: time.Date(2025, 5, 6, 0, 0, 0, 0, time.UTC), Groups: d.groups}, d.text)
	}
	pool.Close()
	return cs
}
