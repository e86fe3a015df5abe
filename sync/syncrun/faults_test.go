package syncrun_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// memSource is a source held in memory, with hooks to make its listing or a download fail.
// (The network-level fakes are in the gdrive and s3 tests; this one drives the runner's logic.)
type memSource struct {
	mu        sync.Mutex
	files     map[string]string // id -> content
	groups    []string
	failAfter int // List returns this many items, then an error; 0: no failure
	openErr   map[string]error
	block     chan struct{} // when set, List waits for it to close
	listed    chan struct{} // when set, closed when List starts
}

func newMemSource(n int, version string) *memSource {
	m := &memSource{files: map[string]string{}, groups: []string{"everyone"}, openErr: map[string]error{}}
	for i := range n {
		m.files[fmt.Sprintf("doc-%03d.md", i)] = fmt.Sprintf("# Documento %d\n\nContenido %s del documento número %d sobre el tema %d.\n", i, version, i, i)
	}
	return m
}

func (m *memSource) List(ctx context.Context) ([]indexer.Item, bool, error) {
	if m.listed != nil {
		close(m.listed)
	}
	if m.block != nil {
		select {
		case <-m.block:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var items []indexer.Item
	for i := range 1000 {
		id := fmt.Sprintf("doc-%03d.md", i)
		content, ok := m.files[id]
		if !ok {
			continue
		}
		if m.failAfter > 0 && len(items) == m.failAfter {
			return items, false, errors.New("connection reset by peer")
		}
		openErr := m.openErr[id]
		items = append(items, indexer.Item{
			ExternalID: id, Name: id, Fingerprint: fmt.Sprintf("%x", sha256.Sum256([]byte(content))),
			Groups: m.groups,
			Open: func(context.Context) ([]byte, error) {
				if openErr != nil {
					return nil, openErr
				}
				return []byte(content), nil
			},
		})
	}
	return items, true, nil
}

func TestListingFailsHalfwayDeletesNothing(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	mem := newMemSource(10, "v1")
	src := syncrun.Source{Name: "mem", Connector: mem}
	ix.MustRun(t, src, syncrun.RunOptions{})

	mem.failAfter = 4
	res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("want the listing error, got %v", err)
	}
	if res.Run.Complete || res.Run.Deleted != 0 || res.Run.Error == "" {
		t.Fatalf("partial listing: %+v", res.Run)
	}
	if n := len(ix.Docs(t, "mem")); n != 10 {
		t.Fatalf("%d documents left after a failed listing, want 10", n)
	}
	last, ok, err := ix.Runner.History().Last(context.Background(), "mem")
	if err != nil || !ok || last.ID != res.Run.ID || last.Error == "" || last.FinishedAt.IsZero() {
		t.Fatalf("history of the failed run: %+v ok=%v err=%v", last, ok, err)
	}
}

func TestDownloadFailureKeepsPreviousVersion(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	src := syncrun.Source{Name: "mem", Connector: newMemSource(5, "v1")}
	ix.MustRun(t, src, syncrun.RunOptions{})
	before := ix.Docs(t, "mem")

	mem := newMemSource(5, "v2")
	mem.openErr["doc-002.md"] = errors.New("503 service unavailable")
	src.Connector = mem
	res := ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Changed != 4 || res.Run.Failed != 1 || res.Failures[0].ExternalID != "doc-002.md" {
		t.Fatalf("run %+v failures %v", res.Run, res.Failures)
	}
	after := ix.Docs(t, "mem")
	if after["doc-002.md"].Version != before["doc-002.md"].Version || after["doc-002.md"].ContentHash != before["doc-002.md"].ContentHash {
		t.Fatal("the failed document was replaced")
	}
	if after["doc-001.md"].ContentHash == before["doc-001.md"].ContentHash {
		t.Fatal("the other documents were not re-indexed")
	}
}

func TestEmbeddingTimeoutKeepsPreviousVersions(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	src := syncrun.Source{Name: "mem", Connector: newMemSource(6, "v1")}
	ix.MustRun(t, src, syncrun.RunOptions{})
	before := ix.Docs(t, "mem")

	src.Connector = newMemSource(6, "v2")
	ix.Embedder.Fail(fmt.Errorf("POST /v1/embeddings: %w", context.DeadlineExceeded))
	res := ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Failed != 6 || res.Run.Changed != 0 || !strings.Contains(res.Run.Error, "deadline exceeded") {
		t.Fatalf("run during embedding outage: %+v", res.Run)
	}
	for id, d := range ix.Docs(t, "mem") {
		if d.Version != before[id].Version {
			t.Fatalf("%s changed version during an embedding outage", id)
		}
	}
	ix.Embedder.Fail(nil)
	if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Changed != 6 || res.Run.Failed != 0 || res.Run.Error != "" {
		t.Fatalf("run after the outage: %+v", res.Run)
	}
}

func TestInterruptedRunIsFinishedByTheNext(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	src := syncrun.Source{Name: "mem", Connector: newMemSource(40, "v1")}
	ix.MustRun(t, src, syncrun.RunOptions{})
	src.Connector = newMemSource(40, "v2")

	ctx, cancel := context.WithCancel(context.Background())
	res, err := ix.Runner.Run(ctx, src, syncrun.RunOptions{Progress: func(done, total int, _ string) {
		if done == 15 {
			cancel() // the process "dies" here: no further item is processed
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if res.Run.Error == "" {
		t.Fatal("interrupted run not recorded with its error")
	}
	mid := ix.Docs(t, "mem")
	if len(mid) != 40 {
		t.Fatalf("%d documents after an interrupted run, want 40 (nothing deleted)", len(mid))
	}
	assertChunkGroupsMatch(t, ix)

	res = ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Changed+res.Run.Unchanged != 40 || res.Run.Changed == 0 || res.Run.Failed != 0 {
		t.Fatalf("resuming run: %+v", res.Run)
	}
	want := newMemSource(40, "v2")
	for id, d := range ix.Docs(t, "mem") {
		items, _, _ := want.List(context.Background())
		for _, it := range items {
			if it.ExternalID == id && d.Fingerprint != it.Fingerprint {
				t.Fatalf("%s not at the source's version after the resuming run", id)
			}
		}
	}
	assertChunkGroupsMatch(t, ix)
}

func TestConcurrentRunsOfOneSource(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	replica := ix.Replica(t)
	mem := newMemSource(3, "v1")
	mem.block, mem.listed = make(chan struct{}), make(chan struct{})
	src := syncrun.Source{Name: "mem", Connector: mem}
	done := make(chan error, 1)
	go func() {
		_, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
		done <- err
	}()
	<-mem.listed
	if _, err := replica.Runner.Run(context.Background(), syncrun.Source{Name: "mem", Connector: newMemSource(3, "v1")}, syncrun.RunOptions{}); !errors.Is(err, syncrun.ErrBusy) {
		t.Fatalf("second replica while the first syncs: %v, want ErrBusy", err)
	}
	if _, err := replica.Runner.Run(context.Background(), syncrun.Source{Name: "other", Connector: newMemSource(1, "v1")}, syncrun.RunOptions{}); err != nil {
		t.Fatalf("another source is not blocked: %v", err)
	}
	close(mem.block)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("first run did not finish")
	}
	// The lock was released on its own connection: the replica may sync now.
	if _, err := replica.Runner.Run(context.Background(), syncrun.Source{Name: "mem", Connector: newMemSource(3, "v1")}, syncrun.RunOptions{}); err != nil {
		t.Fatalf("after the first run: %v", err)
	}
}
