package pgstore_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// replicated is a store on the primary of a real streaming pair, with the built-in embedder.
type replicated struct {
	*bundle
	pair *testdb.Replicated
}

func setupReplicated(t *testing.T) *replicated {
	t.Helper()
	pair := testdb.NewReplicated(t)
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, pair.Primary, pgstore.PoolOptions{Schema: pair.Schema}, logger)
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
	return &replicated{bundle: &bundle{store: store, emb: emb}, pair: pair}
}

// router opens the standby as the one read replica and starts checking it.
func (r *replicated) router(t *testing.T, maxLag time.Duration) *pgstore.Replicas {
	t.Helper()
	reps, err := pgstore.OpenReplicas([]string{r.pair.Standby}, pgstore.PoolOptions{Schema: r.pair.Schema})
	if err != nil {
		t.Fatal(err)
	}
	router := pgstore.NewReplicas(r.store.Pool(), reps, pgstore.ReplicaOptions{MaxLag: maxLag, CheckInterval: 50 * time.Millisecond})
	router.Start(context.Background())
	t.Cleanup(router.Close)
	return router
}

func (r *replicated) search(t *testing.T, arms rag.ArmStore, query string) *rag.SearchResult {
	t.Helper()
	res, err := rag.NewHybrid(arms, r.emb, rag.DefaultHybridOptions()).Search(context.Background(),
		rag.SearchRequest{Query: query, Scope: rag.MustScope("everyone")})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	return res
}

func hitPaths(res *rag.SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func armHas(res *rag.SearchResult, ids []int64) bool {
	for _, hits := range res.Trace.Arms {
		for _, h := range hits {
			if slices.Contains(ids, h.ChunkID) {
				return true
			}
		}
	}
	return false
}

// waitState waits until the router reports the replica in state.
func waitState(t *testing.T, router *pgstore.Replicas, state string) pgstore.ReplicaStat {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, reps := router.Stats()
		if reps[0].State == state {
			return reps[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica stayed %s (lag %s), want %s", reps[0].State, reps[0].Lag, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadReplicaRoutingAndLagRule runs against a real streaming standby whose replay is paused:
// the arms run there while it is within the maximum lag, a document deleted on the primary is
// never answered from it, and once it lags further than allowed the primary answers.
func TestReadReplicaRoutingAndLagRule(t *testing.T) {
	t.Parallel()
	r := setupReplicated(t)
	r.doc(t, "t", "vacaciones.md", "Política de vacaciones", "es", []string{"everyone"},
		"Cada empleado tiene derecho a 15 días hábiles de vacaciones por año trabajado.")
	r.doc(t, "t", "remote.md", "Remote work policy", "en", []string{"everyone"},
		"Employees may work remotely up to three days per week with their manager's approval.")
	vacationChunks := func() []int64 {
		var ids []int64
		for _, h := range r.search(t, r.store, "vacaciones días hábiles").Hits {
			if h.Path == "vacaciones.md" {
				ids = append(ids, h.ChunkID)
			}
		}
		return ids
	}()
	if len(vacationChunks) == 0 {
		t.Fatal("the primary does not find vacaciones.md (the test would prove nothing)")
	}
	r.pair.WaitReplayed(t)
	// Routers learn how far behind a replica is from its replay position and the primary's
	// positions they sampled: they must have seen it caught up before it falls behind.
	patient, strict := r.router(t, time.Hour), r.router(t, 2*time.Second)
	waitState(t, patient, pgstore.ReplicaOK)
	waitState(t, strict, pgstore.ReplicaOK)
	r.pair.PauseReplay(t)
	// Written on the primary only, while the standby shows the past.
	r.doc(t, "t", "onboarding.md", "Laptop onboarding", "en", []string{"everyone"},
		"New hires collect their zanzibar laptop from the service desk on the first day.")
	if got := hitPaths(r.search(t, r.store, "zanzibar laptop")); !slices.Contains(got, "onboarding.md") {
		t.Fatalf("the primary does not find onboarding.md: %v", got)
	}

	t.Run("the arms run on the replica", func(t *testing.T) {
		router := patient // lagging, but within an hour
		if got := hitPaths(r.search(t, r.store.Routed(router), "zanzibar laptop")); slices.Contains(got, "onboarding.md") {
			t.Errorf("the routed search found onboarding.md, which only the primary has: the arms did not run on the replica (%v)", got)
		}
		primary, reps := router.Stats()
		if reps[0].Reads != 2 || primary != 0 {
			t.Errorf("reads: replica %d, primary %d; want 2 (both arms) and 0", reps[0].Reads, primary)
		}
	})

	t.Run("a router started while the replica lags uses it within the maximum", func(t *testing.T) {
		// Its history starts after the pause; the last commit the replica replayed tells.
		router := r.router(t, time.Hour)
		waitState(t, router, pgstore.ReplicaOK)
		if got := hitPaths(r.search(t, r.store.Routed(router), "zanzibar laptop")); slices.Contains(got, "onboarding.md") {
			t.Errorf("the routed search found onboarding.md, which only the primary has (%v)", got)
		}
	})

	t.Run("a document deleted on the primary is never answered from the replica", func(t *testing.T) {
		router := patient
		if n, err := r.store.DeleteDocuments(context.Background(), "t", []string{"vacaciones.md"}); err != nil || n != 1 {
			t.Fatalf("delete: %d, %v", n, err)
		}
		res := r.search(t, r.store.Routed(router), "vacaciones días hábiles")
		if !armHas(res, vacationChunks) {
			t.Fatal("the replica's arms did not rank the deleted document's chunks (the test would prove nothing)")
		}
		if got := hitPaths(res); slices.Contains(got, "vacaciones.md") {
			t.Errorf("a document deleted on the primary was answered from the lagging replica: %v", got)
		}
	})

	t.Run("a replica lagging more than the maximum is skipped", func(t *testing.T) {
		router := strict
		stat := waitState(t, router, pgstore.ReplicaLagging)
		if stat.Lag <= 2*time.Second {
			t.Errorf("lagging with lag %s, want over the 2s maximum", stat.Lag)
		}
		if got := hitPaths(r.search(t, r.store.Routed(router), "zanzibar laptop")); !slices.Contains(got, "onboarding.md") {
			t.Errorf("the search passed over the lagging replica yet missed onboarding.md: %v", got)
		}
		primary, reps := router.Stats()
		if primary != 2 || reps[0].Reads != 0 || reps[0].Skips[pgstore.ReplicaLagging] != 2 {
			t.Errorf("reads: primary %d, replica %d, skipped as lagging %d; want 2, 0, 2", primary, reps[0].Reads, reps[0].Skips[pgstore.ReplicaLagging])
		}

		r.pair.ResumeReplay(t)
		r.pair.WaitReplayed(t)
		waitState(t, router, pgstore.ReplicaOK)
		if got := hitPaths(r.search(t, r.store.Routed(router), "zanzibar laptop")); !slices.Contains(got, "onboarding.md") {
			t.Errorf("the caught-up replica misses onboarding.md: %v", got)
		}
		if _, reps := router.Stats(); reps[0].Reads != 2 {
			t.Errorf("the caught-up replica served %d reads, want 2", reps[0].Reads)
		}
	})

	t.Run("a replica that fails a search is left out and the primary answers", func(t *testing.T) {
		reps, err := pgstore.OpenReplicas([]string{r.pair.Standby}, pgstore.PoolOptions{Schema: r.pair.Schema})
		if err != nil {
			t.Fatal(err)
		}
		// Checked once, at Start: the failure is found by the search, not by a check.
		router := pgstore.NewReplicas(r.store.Pool(), reps, pgstore.ReplicaOptions{MaxLag: time.Hour, CheckInterval: time.Hour})
		router.Start(context.Background())
		defer router.Close()
		waitState(t, router, pgstore.ReplicaOK)
		r.pair.StopStandby(t)
		if got := hitPaths(r.search(t, r.store.Routed(router), "zanzibar laptop")); !slices.Contains(got, "onboarding.md") {
			t.Errorf("the search did not fall back to the primary: %v", got)
		}
		primary, stats := router.Stats()
		if stats[0].State != pgstore.ReplicaDown || primary != 2 {
			t.Errorf("after failing: replica %s, primary reads %d; want down and 2 (both arms retried)", stats[0].State, primary)
		}
	})
}

// TestReplicasSkipWhatIsNotAStandby: a read URL that does not answer, or that reaches a server
// not in recovery (here the primary itself), never serves searches.
func TestReplicasSkipWhatIsNotAStandby(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.doc(t, "t", "remote.md", "Remote work policy", "en", []string{"everyone"},
		"Employees may work remotely up to three days per week with their manager's approval.")
	cs, schema := testdb.Schema(t)
	reps, err := pgstore.OpenReplicas([]string{
		"host=/nonexistent/cita-socket port=5999 user=postgres dbname=cita connect_timeout=2",
		cs,
	}, pgstore.PoolOptions{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	router := pgstore.NewReplicas(b.store.Pool(), reps, pgstore.ReplicaOptions{CheckInterval: 50 * time.Millisecond})
	router.Start(context.Background())
	defer router.Close()
	_, stats := router.Stats()
	if stats[0].State != pgstore.ReplicaDown || stats[1].State != pgstore.ReplicaNotStandby {
		t.Fatalf("states %s, %s; want down, not_standby", stats[0].State, stats[1].State)
	}
	res, err := rag.NewHybrid(b.store.Routed(router), b.emb, rag.DefaultHybridOptions()).Search(context.Background(),
		rag.SearchRequest{Query: "work remotely", Scope: rag.MustScope("everyone")})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v, %d hits", err, len(res.Hits))
	}
	if primary, _ := router.Stats(); primary != 2 {
		t.Errorf("the primary served %d reads, want 2", primary)
	}
}
