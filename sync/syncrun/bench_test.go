package syncrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// readCounter wraps a connector and counts content reads.
type readCounter struct {
	syncrun.Connector
	reads atomic.Int64
}

func (c *readCounter) List(ctx context.Context) ([]indexer.Item, bool, error) {
	items, complete, err := c.Connector.List(ctx)
	for i := range items {
		open := items[i].Open
		items[i].Open = func(ctx context.Context) ([]byte, error) { c.reads.Add(1); return open(ctx) }
	}
	return items, complete, err
}

// BenchmarkResyncUnchanged indexes a folder of 10,000 files once, then measures re-syncs of the
// unchanged tree: fingerprints only, no content read, nothing embedded. It then deletes 100
// files and checks that one run removes them from search. Run it with
//
//	go test ./sync/syncrun -run '^$' -bench ResyncUnchanged -benchtime 5x
func BenchmarkResyncUnchanged(b *testing.B) {
	const files = 10_000
	ix := synctest.New(b)
	root := b.TempDir()
	mtime := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range files {
		dir := filepath.Join(root, fmt.Sprintf("area-%02d", i%50))
		_ = os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, fmt.Sprintf("nota-%05d.md", i))
		if err := os.WriteFile(p, fmt.Appendf(nil, "# Nota %d\n\nRegistro número %d, palabra clave k%dq.\n", i, i, i), 0o644); err != nil {
			b.Fatal(err)
		}
		_ = os.Chtimes(p, mtime, mtime)
	}
	src := folderSource(b, root, config.AccessRules{}, true)
	counter := &readCounter{Connector: src.Connector}
	src.Connector = counter
	start := time.Now()
	first := ix.MustRun(b, src, syncrun.RunOptions{})
	b.Logf("first index: %d files in %s (%d texts embedded)", first.Run.Added, time.Since(start).Round(time.Millisecond), ix.Embedder.Texts())

	reads, texts := counter.reads.Load(), ix.Embedder.Texts()
	b.ResetTimer()
	for b.Loop() {
		res := ix.MustRun(b, src, syncrun.RunOptions{})
		if res.Run.Unchanged != files {
			b.Fatalf("re-sync: %+v", res.Run)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(counter.reads.Load()-reads), "reads")
	b.ReportMetric(float64(ix.Embedder.Texts()-texts), "embedded")
	if counter.reads.Load() != reads || ix.Embedder.Texts() != texts {
		b.Fatalf("re-sync of unchanged files read %d files and embedded %d texts", counter.reads.Load()-reads, ix.Embedder.Texts()-texts)
	}

	// Deletion at the source -> absence from answers: one run.
	var gone []int64
	docs := ix.Docs(b, "share")
	for i := 0; i < files; i += 100 {
		rel := fmt.Sprintf("area-%02d/nota-%05d.md", i%50, i)
		gone = append(gone, docs[rel].ID)
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			b.Fatal(err)
		}
	}
	start = time.Now()
	res := ix.MustRun(b, src, syncrun.RunOptions{})
	took := time.Since(start)
	if res.Run.Deleted != len(gone) {
		b.Fatalf("deleted %d, want %d", res.Run.Deleted, len(gone))
	}
	for n, i := 0, 0; i < files; i, n = i+100, n+1 {
		if ix.Answerable(b, fmt.Sprintf("k%dq", i), rag.MustScope("everyone"), gone[n]) {
			b.Fatalf("deleted file %d still answers", i)
		}
	}
	b.Logf("deleted %d files at the source: absent from search after 1 run (%s)", len(gone), took.Round(time.Millisecond))
}
