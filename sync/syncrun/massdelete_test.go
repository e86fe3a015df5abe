package syncrun_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestFolderEmptiedShareDeletesNothing: an unmounted share looks like an empty folder and its
// listing completes. The pass must delete nothing, say why in the run history, and delete only
// when confirmed for that one run.
func TestFolderEmptiedShareDeletesNothing(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	root := t.TempDir()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range 8 {
		writeFile(t, root, fmt.Sprintf("docs/nota-%d.md", i), fmt.Sprintf("# Nota %d\n\nContenido de la nota %d.\n", i, i), t0)
	}
	src := folderSource(t, root, config.AccessRules{}, false)
	ix.MustRun(t, src, syncrun.RunOptions{})

	// The mount point is still there, empty: the walk completes and lists nothing.
	if err := os.RemoveAll(filepath.Join(root, "docs")); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
	if n := len(ix.Docs(t, "share")); n != 8 || res.Run.Deleted != 0 {
		t.Fatalf("an empty listing deleted %d documents (%d left of 8)", res.Run.Deleted, n)
	}
	if !errors.Is(err, syncrun.ErrMassDelete) || res.Run.DeletesBlocked != 8 || !res.Run.Complete {
		t.Fatalf("held-back pass: err %v, run %+v", err, res.Run)
	}
	last, _, herr := ix.Runner.History().Last(context.Background(), "share")
	if herr != nil || last.DeletesBlocked != 8 || !strings.Contains(last.Error, "all of them") ||
		!strings.Contains(last.Error, "cita sync --source share --allow-mass-delete") {
		t.Fatalf("history of the held-back pass: %+v, %v", last, herr)
	}
	// Asked again at every pass until confirmed.
	if res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{}); !errors.Is(err, syncrun.ErrMassDelete) || res.Run.DeletesBlocked != 8 {
		t.Fatalf("second pass over the empty share: %v %+v", err, res.Run)
	}
	res, err = ix.Runner.Run(context.Background(), src, syncrun.RunOptions{AllowMassDelete: true})
	if err != nil || res.Run.Deleted != 8 || len(ix.Docs(t, "share")) != 0 {
		t.Fatalf("confirmed pass: %v %+v", err, res.Run)
	}
}

// TestMassDeletionGuardThresholds checks the rule on a source of 3 and one of 20, and that a
// held-back pass still applies its additions, edits and permission changes.
func TestMassDeletionGuardThresholds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	fill := func(t *testing.T, n int) (*synctest.Index, string, syncrun.Source) {
		ix := synctest.New(t)
		root := t.TempDir()
		for i := range n {
			writeFile(t, root, fmt.Sprintf("nota-%02d.md", i), fmt.Sprintf("# Nota %d\n\nContenido de la nota %d.\n", i, i), t0)
		}
		src := folderSource(t, root, config.AccessRules{Rules: []config.AccessRule{{Match: "secreto-*", Groups: []string{"board"}}}}, false)
		ix.MustRun(t, src, syncrun.RunOptions{})
		return ix, root, src
	}
	remove := func(t *testing.T, root string, from, to int) {
		for i := from; i < to; i++ {
			if err := os.Remove(filepath.Join(root, fmt.Sprintf("nota-%02d.md", i))); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("one of three is ordinary", func(t *testing.T) {
		t.Parallel()
		ix, root, src := fill(t, 3)
		remove(t, root, 0, 1)
		if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Deleted != 1 || res.Run.DeletesBlocked != 0 {
			t.Fatalf("deleting 1 of 3: %+v", res.Run)
		}
		remove(t, root, 1, 2)
		if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Deleted != 1 {
			t.Fatalf("deleting 1 of 2: %+v", res.Run)
		}
		remove(t, root, 2, 3)
		if res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{}); !errors.Is(err, syncrun.ErrMassDelete) || len(ix.Docs(t, "share")) != 1 {
			t.Fatalf("deleting the last document of a source was not held back: %v %+v", err, res.Run)
		}
	})

	t.Run("fraction of twenty", func(t *testing.T) {
		t.Parallel()
		ix, root, src := fill(t, 20)
		remove(t, root, 0, 4) // 4 of 20 = 0.2: allowed
		if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Deleted != 4 {
			t.Fatalf("deleting 4 of 20: %+v", res.Run)
		}
		// 6 of the 16 left (0.375: five removed, one renamed) while one file changes, one is added and
		// the renamed one gets narrower groups.
		remove(t, root, 4, 9)
		writeFile(t, root, "nota-10.md", "# Nota 10\n\nContenido nuevo: el proyecto ibis.\n", t0.Add(time.Hour))
		writeFile(t, root, "nueva.md", "# Nueva\n\nUna nota nueva sobre el proyecto garza.\n", t0.Add(time.Hour))
		if err := os.Rename(filepath.Join(root, "nota-11.md"), filepath.Join(root, "secreto-11.md")); err != nil {
			t.Fatal(err)
		}
		res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{})
		if !errors.Is(err, syncrun.ErrMassDelete) || res.Run.Deleted != 0 || res.Run.DeletesBlocked != 6 ||
			res.Run.Changed != 1 || res.Run.Added != 2 || !strings.Contains(res.Run.Error, "more than max_delete_fraction 0.2") {
			t.Fatalf("a pass deleting 6 of 16: %v %+v", err, res.Run)
		}
		docs := ix.Docs(t, "share")
		if len(docs) != 18 || !slices.Equal(docs["secreto-11.md"].Groups, []string{"board"}) {
			t.Fatalf("the held-back pass did not apply its other changes: %d documents, %v", len(docs), docs["secreto-11.md"].Groups)
		}
		if !ix.Answerable(t, "proyecto ibis", rag.MustScope("everyone"), docs["nota-10.md"].ID) {
			t.Fatal("the edit of the held-back pass is not searchable")
		}
		// A larger fraction configured for the source lets the same pass through.
		fraction := 0.5
		src.MaxDeleteFraction = &fraction
		if res := ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Deleted != 6 || res.Run.DeletesBlocked != 0 {
			t.Fatalf("with max_delete_fraction 0.5: %+v", res.Run)
		}
	})

	t.Run("dry run reports the hold", func(t *testing.T) {
		t.Parallel()
		ix, root, src := fill(t, 10)
		remove(t, root, 0, 10)
		res, err := ix.Runner.Run(context.Background(), src, syncrun.RunOptions{DryRun: true})
		if !errors.Is(err, syncrun.ErrMassDelete) || res.Run.DeletesBlocked != 10 || len(ix.Docs(t, "share")) != 10 {
			t.Fatalf("dry run: %v %+v", err, res.Run)
		}
		res, err = ix.Runner.Run(context.Background(), src, syncrun.RunOptions{DryRun: true, AllowMassDelete: true})
		if err != nil || res.Run.Deleted != 10 || len(ix.Docs(t, "share")) != 10 {
			t.Fatalf("confirmed dry run: %v %+v", err, res.Run)
		}
	})
}
