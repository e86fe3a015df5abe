package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
	"github.com/citahq/cita/sync/indexer"
)

// crashDSNEnv hands the crash child its schema's connection string.
const crashDSNEnv = "CITA_BULK_CRASH_DSN"

// bulkCorpus returns n in-memory documents with skewed word counts, so that BM25's document
// frequencies (and with them the ranking) depend on every document being counted. They fall in
// three access classes, so that a scope's statistics (per class) differ from the global ones.
func bulkCorpus(n int) []indexer.Item { return bulkCorpusNamed("informe", n) }

// bulkCorpusNamed is bulkCorpus with another prefix for the ids, for a second source.
func bulkCorpusNamed(prefix string, n int) []indexer.Item {
	vocab := strings.Fields("alpaca bisonte camello delfin erizo foca gacela hiena iguana jaguar koala lemur " +
		"mapache nutria ocelote pantera quetzal rana salamandra tapir urraca vicuna wombat yak zorro")
	var seed uint64
	for _, c := range prefix {
		seed = seed*31 + uint64(c)
	}
	rng := rand.New(rand.NewPCG(7, seed))
	items := make([]indexer.Item, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Informe %d\n\n", i)
		for range 12 + rng.IntN(20) {
			// Zipf-like: early words are common, late ones rare.
			w := vocab[int(math.Min(float64(len(vocab)-1), rng.ExpFloat64()*5))]
			b.WriteString(w + " ")
		}
		content := b.String()
		id := fmt.Sprintf("%s-%03d.md", prefix, i)
		groups := [][]string{{"everyone"}, {"everyone", "hr"}, {"hr"}}[i%3]
		items[i] = indexer.Item{ExternalID: id, Name: id, Fingerprint: fmt.Sprintf("v1-%d", i), Groups: groups,
			Open: func(context.Context) ([]byte, error) { return []byte(content), nil }}
	}
	return items
}

const (
	crashCorpusSize = 60
	crashAfterItems = 40
)

func crashLoadOptions() indexer.Options {
	return indexer.Options{BulkThreshold: 20, EmbedBatch: 8, Writers: 2}
}

// TestBulkLoadCrashChild is the process that dies: it starts a first (bulk) load into the
// schema named by CITA_BULK_CRASH_DSN and kills itself with SIGKILL part-way, so no deferred
// clean-up runs. It does nothing in a normal test run.
func TestBulkLoadCrashChild(t *testing.T) {
	cs := os.Getenv(crashDSNEnv)
	if cs == "" {
		t.Skip("run by TestBulkLoadSurvivesACrash as its child process")
	}
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	opts := crashLoadOptions()
	opts.Progress = func(done, _ int, _ string) {
		if done == crashAfterItems {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Kill() // SIGKILL: the process ends here, mid-load
		}
	}
	_, err = indexer.New(store, emb, opts, logger).Sync(ctx, "crash", bulkCorpus(crashCorpusSize), true)
	t.Fatalf("the load finished (%v) instead of dying part-way", err)
}

// TestBulkLoadSurvivesACrash kills a process in the middle of a first, bulk load. The next
// process to open the index ("open"), or a process that was already running when it next syncs
// ("sync"), must find the interrupted load, rebuild the term statistics and the vector index,
// and, once the load is finished by a later sync, rank exactly as an index loaded without
// interruption.
func TestBulkLoadSurvivesACrash(t *testing.T) {
	t.Parallel()
	for _, detectedBy := range []string{"open", "sync"} {
		t.Run(detectedBy, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cs, schema := testdb.Schema(t)
			var survivor *bundle
			if detectedBy == "sync" {
				survivor = openStore(t, cs) // a replica running since before the crash
			}
			crashFirstLoad(t, cs, "cita-crash-"+schema)

			if detectedBy == "open" {
				survivor = openStore(t, cs)
				if problems := statsProblems(t, survivor.store.Pool()); problems != "" {
					t.Fatalf("after reopening the crashed index: %s", problems)
				}
				if n := hnswIndexes(t, survivor.store.Pool()); n != 1 {
					t.Fatalf("%d HNSW indexes after reopening the crashed index, want 1", n)
				}
				if n := bulkLoadRows(t, survivor.store.Pool()); n != 0 {
					t.Fatalf("the interrupted load's state is still recorded after reopening (%d rows)", n)
				}
			}

			// A later sync finishes the load; it must then rank as an uninterrupted load does.
			if _, err := indexer.New(survivor.store, survivor.emb, crashLoadOptions(), slog.New(slog.DiscardHandler)).Sync(ctx, "crash", bulkCorpus(crashCorpusSize), true); err != nil {
				t.Fatal(err)
			}
			ref := setup(t)
			if _, err := indexer.New(ref.store, ref.emb, crashLoadOptions(), slog.New(slog.DiscardHandler)).Sync(ctx, "crash", bulkCorpus(crashCorpusSize), true); err != nil {
				t.Fatal(err)
			}
			for _, s := range []*pgstore.Store{survivor.store, ref.store} {
				if problems := statsProblems(t, s.Pool()); problems != "" {
					t.Fatalf("after finishing the load: %s", problems)
				}
				if n := hnswIndexes(t, s.Pool()); n != 1 {
					t.Fatalf("%d HNSW indexes after finishing the load, want 1", n)
				}
				if n := bulkLoadRows(t, s.Pool()); n != 0 {
					t.Fatalf("bulk load state left after finishing the load (%d rows)", n)
				}
			}
			assertSameRanking(t, survivor, ref, "quetzal wombat", "zorro yak vicuna", "alpaca tapir", "jaguar koala lemur")
		})
	}
}

// crashFirstLoad runs TestBulkLoadCrashChild in a process of its own against the schema of cs,
// checks that it died by a signal part-way through its load, and waits until the database has
// ended its sessions (as after a real crash).
func crashFirstLoad(t *testing.T, cs, appName string) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestBulkLoadCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), crashDSNEnv+"="+cs, "PGAPPNAME="+appName)
	out, err := child.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the child did not die by a signal (%v):\n%s", err, out)
	}
	waitForBackendsToEnd(t, cs, appName)
	pool, err := pgxpool.New(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var loaded int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM documents`).Scan(&loaded); err != nil {
		t.Fatal(err)
	}
	if loaded == 0 || loaded >= crashCorpusSize {
		t.Fatalf("the crashed load left %d of %d documents; the test needs a partial load", loaded, crashCorpusSize)
	}
}

func bulkLoadRows(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM bulk_load`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitForBackendsToEnd waits until the database has closed every session of a dead process.
func waitForBackendsToEnd(t *testing.T, cs, appName string) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, appName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the killed process are still open", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openStore opens a store on an existing schema as a new process would.
func openStore(t *testing.T, cs string) *bundle {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{}, logger)
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
	return &bundle{store: store, emb: emb}
}

// statsProblems compares the term statistics, global and per access class (with their pending
// deltas), to a count from the chunks themselves, and returns what differs, or "".
func statsProblems(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	global := globalStatsProblems(t, pool)
	class := pgstoretest.ClassStatsProblems(t, pool)
	if class == "" {
		return global
	}
	return strings.TrimPrefix(global+"; ", "; ") + class
}

// globalStatsProblems is statsProblems for the global statistics (lexeme_stats, corpus_stats).
func globalStatsProblems(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var wrong int
	var counted, real, countedLen, realLen int64
	err := pool.QueryRow(context.Background(), `
		WITH truth AS (SELECT l AS lexeme, count(*)::int AS df FROM chunks, unnest(tsvector_to_array(tsv)) l GROUP BY l),
		known AS (SELECT lexeme, sum(df)::int AS df FROM (SELECT lexeme, df FROM lexeme_stats UNION ALL SELECT lexeme, df FROM lexeme_delta) x
			GROUP BY lexeme HAVING sum(df) <> 0)
		SELECT (SELECT count(*) FROM truth FULL JOIN known USING (lexeme) WHERE truth.df IS DISTINCT FROM known.df),
			(SELECT coalesce(sum(chunks), 0)::bigint FROM (SELECT chunks FROM corpus_stats WHERE kind = 't' UNION ALL SELECT chunks FROM corpus_delta WHERE kind = 't') x),
			(SELECT count(*) FROM chunks),
			(SELECT coalesce(sum(total_len), 0)::bigint FROM (SELECT total_len FROM corpus_stats WHERE kind = 's' UNION ALL SELECT total_len FROM corpus_delta WHERE kind = 's') x),
			(SELECT coalesce(sum(length(tsv_simple)), 0)::bigint FROM chunks)`).Scan(&wrong, &counted, &real, &countedLen, &realLen)
	if err != nil {
		t.Fatal(err)
	}
	if wrong == 0 && counted == real && countedLen == realLen {
		return ""
	}
	return fmt.Sprintf("%d lexemes with a wrong document frequency; corpus stats count %d chunks (table has %d) and %d simple lexemes (chunks have %d)",
		wrong, counted, real, countedLen, realLen)
}

func hnswIndexes(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	// pg_class, not pg_indexes: pg_get_indexdef fails on indexes other tests drop meanwhile.
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'hnsw' AND c.relnamespace = current_schema()::regnamespace`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// assertSameRanking compares both arms' rankings of two indexes holding the same documents: the
// same scores in the same order, and the same document and chunk at each score. (Chunks that
// tie may come in any order, and the last score's ties may be cut anywhere.)
func assertSameRanking(t *testing.T, got, want *bundle, queries ...string) {
	t.Helper()
	ctx := context.Background()
	scope := rag.MustScope("everyone")
	ranking := func(b *bundle, q string) (scores []string, above []string) {
		t.Helper()
		fts, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: q}, scope, 20)
		if err != nil {
			t.Fatal(err)
		}
		vec, err := b.store.SearchVector(ctx, b.emb.Vector(q), scope, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, arm := range []struct {
			name string
			hits []rag.ArmHit
		}{{"fts", fts}, {"vector", vec}} {
			for _, h := range arm.hits {
				score := fmt.Sprintf("%s %.6f", arm.name, h.Score)
				scores = append(scores, score)
				if fmt.Sprintf("%.6f", h.Score) == fmt.Sprintf("%.6f", arm.hits[len(arm.hits)-1].Score) {
					continue
				}
				var id string
				var pos int
				if err := b.store.Pool().QueryRow(ctx, `SELECT d.external_id, c.position FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = $1`, h.ChunkID).Scan(&id, &pos); err != nil {
					t.Fatal(err)
				}
				above = append(above, fmt.Sprintf("%s %s/%d", score, id, pos))
			}
		}
		slices.Sort(above)
		return scores, above
	}
	for _, q := range queries {
		gs, ga := ranking(got, q)
		ws, wa := ranking(want, q)
		if !slices.Equal(gs, ws) || !slices.Equal(ga, wa) {
			t.Errorf("%q ranks differently:\n got %v\n     %v\nwant %v\n     %v", q, gs, ga, ws, wa)
		}
	}
}

// TestConcurrentFirstLoads starts two first loads of two sources at once from two "processes"
// (pools) on one empty index. Bulk loads serialize: the index ends with one vector index, exact
// statistics, and the ranking of the same documents loaded one source after the other.
func TestConcurrentFirstLoads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, _ := testdb.Schema(t)
	a, b := openStore(t, cs), openStore(t, cs)
	start := make(chan struct{})
	type result struct {
		rep *indexer.Report
		err error
	}
	results := make(chan result, 2)
	for i, p := range []*bundle{a, b} {
		name := []string{"uno", "dos"}[i]
		go func() {
			<-start
			rep, err := indexer.New(p.store, p.emb, crashLoadOptions(), slog.New(slog.DiscardHandler)).Sync(ctx, name, bulkCorpusNamed(name, crashCorpusSize), true)
			results <- result{rep, err}
		}()
	}
	close(start)
	bulk := 0
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.rep.BulkLoad {
			bulk++
		}
	}
	if bulk > 1 {
		t.Fatalf("%d bulk loads ran at once", bulk)
	}
	if n := bulkLoadRows(t, a.store.Pool()); n != 0 {
		t.Fatalf("bulk load state left after both loads (%d rows)", n)
	}
	if problems := statsProblems(t, a.store.Pool()); problems != "" {
		t.Fatalf("after two concurrent first loads: %s", problems)
	}
	if n := hnswIndexes(t, a.store.Pool()); n != 1 {
		t.Fatalf("%d HNSW indexes after two concurrent first loads, want 1", n)
	}
	ref := setup(t)
	for _, name := range []string{"uno", "dos"} {
		if _, err := indexer.New(ref.store, ref.emb, crashLoadOptions(), slog.New(slog.DiscardHandler)).Sync(ctx, name, bulkCorpusNamed(name, crashCorpusSize), true); err != nil {
			t.Fatal(err)
		}
	}
	assertSameRanking(t, a, ref, "quetzal wombat", "zorro yak vicuna", "alpaca tapir")
}
