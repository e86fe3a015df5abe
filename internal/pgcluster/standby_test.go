package pgcluster

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestCreateStandbyStreamsThePrimary: a standby copied from a running cluster is read-only, on
// its own socket, and shows a row written on the primary after the copy.
func TestCreateStandbyStreamsThePrimary(t *testing.T) {
	t.Parallel()
	base := testBaseDir(t)
	primary := ensureForTest(t, filepath.Join(base, "primary"))
	execSQL(t, primary.ConnString(), "CREATE TABLE notes (n int)", "INSERT INTO notes VALUES (1)")

	standbyDir := filepath.Join(base, "standby")
	stopAtCleanup(t, standbyDir)
	standby, err := primary.CreateStandby(testContext(t), StandbyOptions{DataDir: standbyDir})
	if err != nil {
		t.Fatalf("CreateStandby: %v", err)
	}
	if standby.port != primary.port+1 || standby.ConnString() == primary.ConnString() {
		t.Fatalf("standby at port %d (%s), primary at %d: want its own port and socket", standby.port, standby.ConnString(), primary.port)
	}
	if got := queryInt(t, standby.ConnString(), "SELECT pg_is_in_recovery()::int"); got != 1 {
		t.Fatal("the standby is not in recovery")
	}
	if got := queryInt(t, standby.ConnString(), "SELECT count(*) FROM notes"); got != 1 {
		t.Fatalf("the copy holds %d rows, want 1", got)
	}

	execSQL(t, primary.ConnString(), "INSERT INTO notes VALUES (2)")
	deadline := time.Now().Add(60 * time.Second)
	for queryInt(t, standby.ConnString(), "SELECT count(*) FROM notes") != 2 {
		if time.Now().After(deadline) {
			t.Fatal("a row written on the primary never reached the standby")
		}
		time.Sleep(50 * time.Millisecond)
	}
	withConn(t, standby.ConnString(), func(ctx context.Context, conn *pgx.Conn) {
		_, err := conn.Exec(ctx, "INSERT INTO notes VALUES (3)")
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("a write on the standby: %v, want a read-only error", err)
		}
	})

	if _, err := primary.CreateStandby(testContext(t), StandbyOptions{DataDir: standbyDir}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a standby over a used data dir: %v, want a 'not empty' error", err)
	}
}
