package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// vectorCorpus indexes, per group, docs documents of chunks chunks each (random words from one
// vocabulary, so no group's chunks sit apart from the others') and returns each group's chunk
// ids.
func vectorCorpus(t *testing.T, b *bundle, groups []string, docs, chunks int) map[string]map[int64]bool {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(33, 1))
	vocab := strings.Fields("café cosecha exportación contrato precio lote calidad tueste grano finca envío puerto aduana factura cliente proveedor bodega humedad taza muestra certificado orgánico pago crédito")
	ids := map[string]map[int64]bool{}
	for _, g := range groups {
		for d := 0; d < docs; d++ {
			texts := make([]string, chunks)
			for i := range texts {
				texts[i] = randomText(rng, vocab, 12)
			}
			docID := b.doc(t, "v", fmt.Sprintf("%s-%d.md", g, d), "Notas "+g, "es", []string{g}, texts...)
			rows, err := b.store.Pool().Query(ctx, `SELECT id FROM chunks WHERE document_id = $1`, docID)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				if ids[g] == nil {
					ids[g] = map[int64]bool{}
				}
				ids[g][id] = true
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

// withOptions returns connString with more server options (-c name=value), after those it has.
func withOptions(t *testing.T, connString string, opts ...string) string {
	t.Helper()
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.TrimSpace(cfg.RuntimeParams["options"] + " " + strings.Join(opts, " "))
	return connString + " options='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(all) + "'"
}

// TestVectorArmNeverComesBackShort asks the vector arm for more neighbours than an index scan
// can find under the scope's filter (pgvector stops an iterative scan after
// hnsw.max_scan_tuples, here a handful, once its first pass of ef_search candidates is done) and checks that it returns every row asked for, the
// scope's own, on each layout it plans for (an exact scan, the shared graph, the classes' own
// graphs beside an exact part) and under every plan PostgreSQL may run a statement with: a
// connection's first custom plans and then its choice (auto), custom plans only, and the
// generic plan of a prepared statement. One connection per pool, so the same session runs the
// statement again and again.
func TestVectorArmNeverComesBackShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	loader := &bundle{store: pgstoretest.OnPool(t, pool, emb.Info()), emb: emb}
	groups := []string{"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"}
	ids := vectorCorpus(t, loader, groups, 6, 10) // 60 chunks per group, 480 in all
	tiny := vectorCorpus(t, loader, []string{"tiny"}, 1, 5)
	ids["tiny"] = tiny["tiny"]
	// A large class no scope here reads: a one-group filter keeps 2% of the shared graph.
	vectorCorpus(t, loader, []string{"filler"}, 1, 2500)

	const k = 40
	scopes := []struct {
		scope rag.Scope
		want  int // rows the scope holds, up to k
	}{
		{rag.MustScope("g3"), k},
		{rag.MustScope("g3", "g6"), k},
		{rag.MustScope("tiny", "g5"), k},
		{rag.MustScope("tiny"), 5},
	}
	layouts := []struct {
		name           string
		exactMax, own  int64
		index          string // an index the plan must use; "" for none
		ownGraphsBuilt int
	}{
		{name: "exact", exactMax: pgstore.DefaultExactVectorMax, own: 1 << 40},
		{name: "shared graph", exactMax: 0, own: 1 << 40, index: "chunks_embedding_hnsw_"},
		// Classes of 60 chunks get their own graphs; "tiny" is searched beside them, exactly,
		// and the filler (over half of all chunks) has none.
		{name: "own graphs", exactMax: 10, own: 50, index: "chunks_class_hnsw_", ownGraphsBuilt: len(groups)},
	}
	for _, layout := range layouts {
		if layout.ownGraphsBuilt > 0 {
			loader.store.OwnGraphMin = layout.own
			built, _, err := loader.store.EnsureClassGraphs(ctx)
			if err != nil || built != layout.ownGraphsBuilt {
				t.Fatalf("own graphs: built %d (want %d), err %v", built, layout.ownGraphsBuilt, err)
			}
		}
		for _, mode := range []string{"auto", "force_custom_plan", "force_generic_plan"} {
			t.Run(layout.name+"/"+mode, func(t *testing.T) {
				// hnsw.max_scan_tuples 5: an index scan under a one-group filter (2% of the
				// rows) finds a few neighbours, not 40.
				p, err := pgstore.Open(ctx, withOptions(t, cs, "-c plan_cache_mode="+mode, "-c hnsw.max_scan_tuples=5"),
					pgstore.PoolOptions{Schema: schema, MaxConns: 1}, slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				var limit string
				if err := p.QueryRow(ctx, "SHOW hnsw.max_scan_tuples").Scan(&limit); err != nil || limit != "5" {
					t.Fatalf("hnsw.max_scan_tuples is %q (err %v): the test would prove nothing", limit, err)
				}
				store, err := pgstore.New(p, emb.Info(), slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				store.ExactVectorMax, store.OwnGraphMin = layout.exactMax, layout.own
				// ef_search k: the scan's first pass visits a few hundred chunks, not all.
				store.EfSearch = 1
				for i := 0; i < 8; i++ { // past the five custom plans after which auto may go generic
					for _, sc := range scopes {
						vec := emb.Vector(fmt.Sprintf("precio del lote %d de café de la finca %d", i, i*7))
						plans := &pgstore.Plans{}
						qctx := ctx
						if i == 7 {
							qctx = pgstore.WithPlans(ctx, plans)
						}
						hits, err := store.SearchVector(qctx, vec, sc.scope, k)
						if err != nil {
							t.Fatal(err)
						}
						if len(hits) != sc.want {
							t.Fatalf("query %d, scope %s: %d rows, want %d", i, sc.scope, len(hits), sc.want)
						}
						for _, h := range hits {
							readable := false
							for _, g := range sc.scope.Groups() {
								readable = readable || ids[g][h.ChunkID]
							}
							if !readable {
								t.Fatalf("scope %s got chunk %d, outside it", sc.scope, h.ChunkID)
							}
						}
						if layout.index == "" {
							exact, err := store.SearchVectorExact(ctx, vec, sc.scope, k)
							if err != nil {
								t.Fatal(err)
							}
							if !slices.Equal(chunkIDs(hits), chunkIDs(exact)) {
								t.Fatalf("scope %s: exact plan returned %v, the exact scan %v", sc.scope, chunkIDs(hits), chunkIDs(exact))
							}
						}
						if i == 7 && layout.index != "" && sc.scope.Groups()[0] != "tiny" {
							if text := planText(plans); !strings.Contains(text, layout.index) {
								t.Fatalf("scope %s: the plan uses no %s index:\n%s", sc.scope, layout.index, text)
							}
						}
					}
				}
			})
		}
	}
}

func chunkIDs(hits []rag.ArmHit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

func planText(p *pgstore.Plans) string {
	var b strings.Builder
	for _, pl := range p.List() {
		b.WriteString(pl.Name + ":\n" + pl.Text + "\n")
	}
	return b.String()
}

// TestClassGraphsFollowClassSizes checks the upkeep of the classes' own graphs: a class past
// OwnGraphMin (and under half of all chunks) gets one, searched for its scope; a class that
// shrinks below half of OwnGraphMin loses it, index and all; and the largest class, holding
// most chunks, never gets one.
func TestClassGraphsFollowClassSizes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.store.OwnGraphMin, b.store.ExactVectorMax = 20, 10
	vectorCorpus(t, b, []string{"a", "b"}, 6, 5) // 30 chunks each
	vectorCorpus(t, b, []string{"most"}, 1, 70)  // 70 of 130
	graphs := func() map[string]bool {
		t.Helper()
		rows, err := b.store.Pool().Query(ctx, `SELECT a.groups[1], g.index_name IN (SELECT indexname FROM pg_indexes WHERE schemaname = current_schema())
			FROM class_vector_graphs g JOIN access_classes a ON a.id = g.class_id`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for rows.Next() {
			var g string
			var exists bool
			if err := rows.Scan(&g, &exists); err != nil {
				t.Fatal(err)
			}
			if !exists {
				t.Fatalf("class %s has a recorded graph whose index does not exist", g)
			}
			out[g] = true
		}
		return out
	}
	// vectorCorpus's writes compacted after each document, which keeps the graphs up to date.
	if got := graphs(); !got["a"] || !got["b"] || got["most"] || len(got) != 2 {
		t.Fatalf("graphs after indexing: %v, want a and b", got)
	}
	vec := b.emb.Vector("precio del lote de café")
	plans := &pgstore.Plans{}
	hits, err := b.store.SearchVector(pgstore.WithPlans(ctx, plans), vec, rag.MustScope("a"), 10)
	if err != nil || len(hits) != 10 {
		t.Fatalf("search a: %d hits, err %v", len(hits), err)
	}
	if text := planText(plans); !strings.Contains(text, "chunks_class_hnsw_") {
		t.Fatalf("a's search did not use its own graph:\n%s", text)
	}
	var indexes int
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'chunks_class_hnsw_%'`).Scan(&indexes); err != nil || indexes != 2 {
		t.Fatalf("%d class graph indexes (err %v), want 2", indexes, err)
	}
	// a shrinks to 5 chunks, under half of OwnGraphMin.
	var gone []string
	for d := 1; d < 6; d++ {
		gone = append(gone, fmt.Sprintf("a-%d.md", d))
	}
	if _, err := b.store.DeleteDocuments(ctx, "v", gone); err != nil {
		t.Fatal(err)
	}
	if built, dropped, err := b.store.EnsureClassGraphs(ctx); err != nil || built != 0 || dropped != 1 {
		t.Fatalf("after a shrank: built %d, dropped %d, err %v; want 0, 1", built, dropped, err)
	}
	if got := graphs(); got["a"] || !got["b"] {
		t.Fatalf("graphs after a shrank: %v, want b only", got)
	}
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'chunks_class_hnsw_%'`).Scan(&indexes); err != nil || indexes != 1 {
		t.Fatalf("%d class graph indexes after the drop (err %v), want 1", indexes, err)
	}
	hits, err = b.store.SearchVector(ctx, vec, rag.MustScope("a"), 10)
	if err != nil || len(hits) != 5 {
		t.Fatalf("search a after it shrank: %d hits, err %v; want its 5", len(hits), err)
	}
}

// TestVectorSettingsHoldForTheirStatementOnly: the arm's settings, made in the pipeline before
// its query, hold for the query and are gone afterwards on the same connection.
func TestVectorSettingsHoldForTheirStatementOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	inside, after, err := b.store.VectorSettingsInPipeline(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if inside != [3]string{"123", "off", "0"} {
		t.Errorf("inside the pipeline: ef_search, enable_sort, parallel workers = %v, want 123 off 0", inside)
	}
	if after[0] == "123" || after[1] != "on" || after[2] == "0" {
		t.Errorf("after the pipeline the settings remain: %v", after)
	}
}
