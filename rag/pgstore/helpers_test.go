package pgstore_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/migrations"
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

// doc indexes one document whose chunks are the given texts.
func (b *bundle) doc(t *testing.T, source, id, title, lang string, groups []string, texts ...string) int64 {
	t.Helper()
	return pgstoretest.Put(t, b.store, b.emb, rag.Document{Source: source, ExternalID: id, Title: title, Lang: lang,
		ContentHash: id + "-hash", Groups: groups}, texts...)
}

// migrationProvider runs this module's migrations on pool's schema, for tests that go down and
// up again.
func migrationProvider(t *testing.T, pool *pgxpool.Pool) *goose.Provider {
	t.Helper()
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return provider
}

func (b *bundle) hybrid() *rag.Hybrid {
	return rag.NewHybrid(b.store, b.emb, rag.DefaultHybridOptions())
}

// randomGroups picks each of groups with probability 1/n, or one of them when it picked none.
func randomGroups(rng *rand.Rand, groups []string, n int) []string {
	var g []string
	for _, x := range groups {
		if rng.IntN(n) == 0 {
			g = append(g, x)
		}
	}
	if len(g) == 0 {
		g = []string{groups[rng.IntN(len(groups))]}
	}
	return g
}

// randomText is count words drawn from vocab.
func randomText(rng *rand.Rand, vocab []string, count int) string {
	words := make([]string, count)
	for i := range words {
		words[i] = vocab[rng.IntN(len(vocab))]
	}
	return strings.Join(words, " ")
}
