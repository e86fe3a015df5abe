package gdrive_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/api/option"

	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestDriveRevokedShareDeletesNothing: when the service account loses the share, a complete
// listing is empty and the change feed reports every file removed. Neither may delete the source.
func TestDriveRevokedShareDeletesNothing(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"incremental", "full"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			fake, srv := newFakeDrive(t)
			seedDrive(fake)
			ix := synctest.New(t)
			src := driveSource(t, srv.URL, option.WithHTTPClient(srv.Client()))
			ix.MustRun(t, src, syncrun.RunOptions{})
			before := len(ix.Docs(t, "drive"))
			for _, id := range []string{"doc1", "sheet1", "slides1", "txt1", "md1", "folder1", "img1"} {
				fake.remove(id)
			}
			ro := syncrun.RunOptions{Full: mode == "full"}
			for pass := range 2 { // the change feed is replayed: the second pass asks again
				res, err := ix.Runner.Run(context.Background(), src, ro)
				if res.Run.Mode != mode {
					t.Fatalf("ran %s, want %s", res.Run.Mode, mode)
				}
				if n := len(ix.Docs(t, "drive")); n != before || res.Run.Deleted != 0 {
					t.Fatalf("pass %d: a revoked share deleted %d documents (%d left of %d)", pass+1, res.Run.Deleted, n, before)
				}
				if !errors.Is(err, syncrun.ErrMassDelete) || res.Run.DeletesBlocked != before {
					t.Fatalf("pass %d: err %v, run %+v", pass+1, err, res.Run)
				}
			}
			ro.AllowMassDelete = true
			if res := ix.MustRun(t, src, ro); res.Run.Deleted != before || len(ix.Docs(t, "drive")) != 0 {
				t.Fatalf("confirmed pass: %+v", res.Run)
			}
		})
	}
}
