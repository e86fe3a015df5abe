package translate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests drive the process handling with ordinary programs (cat echoes each query back,
// sleep never answers), so they need no Apertium data.

func fakePipeline(t *testing.T, program string, args ...string) *pipeline {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		t.Fatalf("%s is needed by this test: %v", program, err)
	}
	p := newPipeline("test", []stage{{path: path, args: args}}, slog.New(slog.DiscardHandler))
	t.Cleanup(p.close)
	return p
}

// reaped reports whether none of the pids is still a process (running or zombie) of ours.
func reaped(pids []int) error {
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone
		}
		return fmt.Errorf("process %d still exists: %s", pid, stat)
	}
	return nil
}

func TestPipelineStartsLazilyAndKeepsOneProcess(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "cat")
	if pids := p.pids(); pids != nil {
		t.Fatalf("processes before the first query: %v", pids)
	}
	for i := range 5 {
		got, err := p.translate(context.Background(), fmt.Sprintf("query %d", i), time.Second, 5*time.Second)
		if err != nil || got != fmt.Sprintf("query %d", i) {
			t.Fatalf("translate %d = %q, %v", i, got, err)
		}
	}
	if p.started != 1 {
		t.Errorf("started %d times for 5 queries, want once (kept alive)", p.started)
	}
}

func TestPipelineRestartsAfterCrashAndReapsTheDead(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "cat")
	p.backoff = 0
	if _, err := p.translate(context.Background(), "warm up", time.Second, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	old := p.pids()
	if err := syscallKill(old[0]); err != nil {
		t.Fatal(err)
	}
	// The query that finds it dead fails (a late reply would answer another question) ...
	if _, err := p.translate(context.Background(), "after the crash", time.Second, 5*time.Second); err == nil {
		t.Fatal("translate on a killed pipeline succeeded")
	}
	if err := reaped(old); err != nil {
		t.Errorf("crashed pipeline not reaped: %v", err)
	}
	// ... and the next one starts it again.
	got, err := p.translate(context.Background(), "again", time.Second, 5*time.Second)
	if err != nil || got != "again" {
		t.Fatalf("translate after restart = %q, %v", got, err)
	}
	if p.started != 2 {
		t.Errorf("started %d times, want 2", p.started)
	}
}

func TestPipelineWaitsOutTheBackoffAfterACrash(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "cat")
	if _, err := p.translate(context.Background(), "warm up", time.Second, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	_ = syscallKill(p.pids()[0])
	_, _ = p.translate(context.Background(), "finds it dead", time.Second, 5*time.Second)
	_, err := p.translate(context.Background(), "too soon", time.Second, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "down since") {
		t.Fatalf("translate within the backoff = %v, want a fast 'down since' error", err)
	}
	if p.started != 1 {
		t.Errorf("restarted within the backoff (%d starts)", p.started)
	}
}

func TestPipelineTimeoutKillsAndReaps(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "sleep", "60") // reads nothing, answers nothing
	start := time.Now()
	_, err := p.translate(context.Background(), "never answered", 100*time.Millisecond, 200*time.Millisecond)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("translate took %v after a 200ms deadline", took)
	}
	p.pidMu.Lock()
	pids := append([]int(nil), p.allPIDs...)
	p.pidMu.Unlock()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("translate = %v, want a deadline error", err)
	}
	if err := reaped(pids); err != nil {
		t.Errorf("timed-out pipeline not reaped: %v", err)
	}
	if p.pids() != nil {
		t.Error("pipeline still marked running after a timeout")
	}
	// It stays down for the backoff: a stuck translator must not hold every question.
	start = time.Now()
	if _, err := p.translate(context.Background(), "next", time.Second, 5*time.Second); err == nil || time.Since(start) > time.Second {
		t.Errorf("query after a timeout = %v after %v, want a fast 'down' error", err, time.Since(start))
	}
}

func TestPipelineCallerCancelIsNotAFault(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "sleep", "60")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.translate(ctx, "abandoned", time.Second, 5*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("translate = %v, want the caller's deadline", err)
	}
	if !p.downAt.IsZero() {
		t.Error("the caller's deadline marked the pipeline down")
	}
}

func TestPipelineConcurrentQueriesGetTheirOwnAnswers(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "cat")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				q := fmt.Sprintf("goroutine %d query %d", g, i)
				got, err := p.translate(context.Background(), q, time.Second, 5*time.Second)
				if err != nil || got != q {
					errs <- fmt.Errorf("translate %q = %q, %v", q, got, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPipelineClose(t *testing.T) {
	t.Parallel()
	p := fakePipeline(t, "cat")
	if _, err := p.translate(context.Background(), "warm up", time.Second, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	p.close()
	if err := reaped(pids); err != nil {
		t.Errorf("closed pipeline not reaped: %v", err)
	}
	if _, err := p.translate(context.Background(), "after close", time.Second, 5*time.Second); !errors.Is(err, errClosed) {
		t.Errorf("translate after close = %v, want errClosed", err)
	}
}

func syscallKill(pid int) error {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return proc.Kill()
}

func TestSplitPipeline(t *testing.T) {
	t.Parallel()
	got := splitPipeline(`lt-proc '/a b/x.bin' | apertium-tagger -g $2 '/p.prob' | apertium-pretransfer`)
	want := [][]string{{"lt-proc", "/a b/x.bin"}, {"apertium-tagger", "-g", "$2", "/p.prob"}, {"apertium-pretransfer"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("splitPipeline = %q, want %q", got, want)
	}
}

func TestStreamSafeAndStripMarks(t *testing.T) {
	t.Parallel()
	if got := streamSafe("¿Cuánto  cuesta [x] $foo^bar/baz\n@a<b>{c}*d#e\x00?"); got != "¿Cuánto cuesta x foo bar baz a b c d e ?" {
		t.Errorf("streamSafe = %q", got)
	}
	if got := stripMarks("How many *derribos noted #luke @palabra in 2015 ? * #"); got != "How many derribos noted luke palabra in 2015 ?" {
		t.Errorf("stripMarks = %q", got)
	}
}

// A restart after a crash must not hold a question while the programs load again: the query
// that finds the pipeline dead waits at most restartWait, the restart goes on in the
// background, and a later query gets the restarted pipeline.
func TestPipelineRestartWaitIsCapped(t *testing.T) {
	t.Parallel()
	const load = 1500 * time.Millisecond // how long the fake programs take to start answering
	p := fakePipeline(t, "sh", "-c", "sleep 1.5; exec cat")
	p.backoff, p.restartWait = 0, 100*time.Millisecond
	if got, err := p.translate(context.Background(), "first", time.Second, 10*time.Second); err != nil || got != "first" {
		t.Fatalf("first start = %q, %v; the first start waits for the programs", got, err)
	}
	if err := syscallKill(p.pids()[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := p.translate(context.Background(), "finds it dead", time.Second, 10*time.Second); err == nil {
		t.Fatal("translate on a killed pipeline succeeded")
	}
	start := time.Now()
	_, err := p.translate(context.Background(), "while it restarts", time.Second, 10*time.Second)
	if took := time.Since(start); err == nil || took > load/2 {
		t.Fatalf("query during the restart = %v after %s; want an error within about %s, not the %s load", err, took, p.restartWait, load)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "restarting") {
		t.Errorf("error %q should say it is restarting and wrap a deadline (counted as a timeout)", err)
	}
	// Another query arriving during the restart is capped too, not held for the per-query timeout.
	start = time.Now()
	if _, err := p.translate(context.Background(), "also meanwhile", time.Second, 10*time.Second); err == nil || time.Since(start) > load/2 {
		t.Errorf("second query during the restart = %v after %s, want a capped wait", err, time.Since(start))
	}
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for got != "after the restart" && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		got, err = p.translate(context.Background(), "after the restart", time.Second, 10*time.Second)
	}
	if got != "after the restart" {
		t.Fatalf("after the background restart: %q, %v", got, err)
	}
	if p.started != 2 {
		t.Errorf("started %d times, want 2 (the first start and one restart)", p.started)
	}
}
