package translate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// fakePool is a pool of n pipelines running program with args.
func fakePool(t *testing.T, n int, program string, args ...string) *pipelinePool {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		t.Fatalf("%s is needed by this test: %v", program, err)
	}
	pp := newPipelinePool("test", n, func() *pipeline {
		return newPipeline("test", []stage{{path: path, args: args}}, slog.New(slog.DiscardHandler))
	})
	t.Cleanup(pp.close)
	return pp
}

// TestPoolTranslatesTwoQueriesAtOnce holds every pipeline's answer until two different
// processes have each received a query: a pool of two answers both, where one pipeline taking
// one query at a time would never have the second query before the first is answered.
func TestPoolTranslatesTwoQueriesAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each query: mark that this process got one, wait for the release, echo it back.
	script := `while IFS= read -r -d "" x; do touch "$0/got.$$"; while [ ! -e "$0/release" ]; do sleep 0.01; done; printf "%s\0" "$x"; done`
	pp := fakePool(t, 2, "bash", "-c", script, dir)
	done := make(chan error, 2)
	for i := range 2 {
		go func() {
			got, err := pp.translate(context.Background(), fmt.Sprint("query ", i), 20*time.Second, 20*time.Second)
			if err == nil && got != fmt.Sprint("query ", i) {
				err = fmt.Errorf("query %d answered %q", i, got)
			}
			done <- err
		}()
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, _ := filepath.Glob(filepath.Join(dir, "got.*"))
		if len(got) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s, %d pipeline(s) held a query: the pool does not run two at once", len(got))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestIdlePoolStartsOnePipeline: queries one after the other go to the pipeline already
// running; the others start only when it is busy.
func TestIdlePoolStartsOnePipeline(t *testing.T) {
	t.Parallel()
	pp := fakePool(t, 3, "cat")
	for i := range 6 {
		got, err := pp.translate(context.Background(), fmt.Sprint("q", i), 5*time.Second, 5*time.Second)
		if err != nil || got != fmt.Sprint("q", i) {
			t.Fatalf("query %d = %q, %v", i, got, err)
		}
	}
	started := 0
	for _, p := range pp.pipes {
		started += len(p.pids())
	}
	if started != 1 {
		t.Fatalf("%d pipelines run after six queries one after the other, want 1", started)
	}
}

// TestPoolWaitsForAFreePipelineAtMostTimeout: with every pipeline busy, a query waits at most
// its timeout, then fails saying so.
func TestPoolWaitsForAFreePipelineAtMostTimeout(t *testing.T) {
	t.Parallel()
	pp := fakePool(t, 1, "cat")
	p, err := pp.acquire(context.Background(), time.Second) // the only pipeline, held
	if err != nil {
		t.Fatal(err)
	}
	defer func() { pp.free <- p }()
	start := time.Now()
	_, err = pp.translate(context.Background(), "q", 200*time.Millisecond, time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("translate with every pipeline busy: %v, want a deadline error", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("waited %s for a 200 ms timeout", waited)
	}
}
