package s3_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestBucketWrongPrefixDeletesNothing: a prefix edited to one that holds nothing lists an empty,
// complete bucket. The pass must not delete the source.
func TestBucketWrongPrefixDeletesNothing(t *testing.T) {
	t.Parallel()
	b := newFakeBucket(t)
	for _, k := range []string{"policies/a.md", "policies/b.md", "policies/c.md", "policies/d.md", "policies/e.md"} {
		b.put(t, k, "# "+k+"\n\nTexto de la política "+k+".\n")
	}
	ix := synctest.New(t)
	ix.MustRun(t, b.source(t, func(c *config.SourceConfig) { c.S3.Prefixes = []string{"policies/"} }), syncrun.RunOptions{})
	wrong := b.source(t, func(c *config.SourceConfig) { c.S3.Prefixes = []string{"polices/"} })
	res, err := ix.Runner.Run(context.Background(), wrong, syncrun.RunOptions{})
	if n := len(ix.Docs(t, "bucket")); n != 5 || res.Run.Deleted != 0 {
		t.Fatalf("a wrong prefix deleted %d documents (%d left of 5)", res.Run.Deleted, n)
	}
	if !errors.Is(err, syncrun.ErrMassDelete) || res.Run.DeletesBlocked != 5 || !strings.Contains(res.Run.Error, "--allow-mass-delete") {
		t.Fatalf("held-back pass: %v %+v", err, res.Run)
	}

	// Two of five objects really go (0.4, under the floor of 3): an ordinary pass.
	right := b.source(t, func(c *config.SourceConfig) { c.S3.Prefixes = []string{"policies/"} })
	for _, k := range []string{"policies/a.md", "policies/b.md"} {
		if err := b.admin.RemoveObject(context.Background(), "docs", k, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if res := ix.MustRun(t, right, syncrun.RunOptions{}); res.Run.Deleted != 2 {
		t.Fatalf("deleting 2 of 5: %+v", res.Run)
	}
	res = ix.MustRun(t, wrong, syncrun.RunOptions{AllowMassDelete: true})
	if res.Run.Deleted != 3 || len(ix.Docs(t, "bucket")) != 0 {
		t.Fatalf("confirmed pass: %+v", res.Run)
	}
}
