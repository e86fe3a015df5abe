package testdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/internal/pgcluster"
)

// standbyPort names the standbys' socket files; each standby has its own socket directory.
const standbyPort = pgcluster.DefaultPort + 1

// Replicated is a test's fresh schema on the shared test cluster, the primary, and a streaming
// hot standby of that cluster made for the test alone.
type Replicated struct {
	// Primary and Standby reach the schema on each server (search_path "<schema>,public").
	Primary, Standby string
	Schema           string
	standby          *pgcluster.Cluster
	primaryBase      string
}

// NewReplicated makes a schema on the shared test cluster (as Schema does) and a standby of the
// cluster in the test's temporary directory (pg_basebackup -R, its own socket and port),
// replaying the primary's WAL as it comes; the standby is stopped when the test ends. It waits
// until the standby has the schema. It calls t.Fatal when $CITA_TEST_DATABASE_URL names the
// server (a standby needs the private cluster) or the standby cannot be made.
func NewReplicated(t testing.TB) *Replicated {
	t.Helper()
	primary, schema := Schema(t)
	if shared.cluster == nil {
		t.Fatalf("testdb: a streaming standby needs the private test cluster: unset %s", EnvURL)
	}
	dir := t.TempDir()
	if os.Geteuid() == 0 { // the server runs as another user, who must enter the directory
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatalf("testdb: open %s to the server user: %v", d, err)
			}
		}
	}
	dataDir := filepath.Join(dir, "standby")
	t.Cleanup(func() {
		if err := pgcluster.StopDataDir(context.Background(), pgcluster.Options{DataDir: dataDir}); err != nil {
			t.Errorf("testdb: stop the standby: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	standby, err := shared.cluster.CreateStandby(ctx, pgcluster.StandbyOptions{DataDir: dataDir, Port: standbyPort})
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	standbyConn, err := withSearchPath(standby.ConnString(), schema+",public")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	r := &Replicated{Primary: primary, Standby: standbyConn, Schema: schema, standby: standby, primaryBase: ConnString(t)}
	r.WaitReplayed(t)
	return r
}

// PauseReplay stops the standby applying WAL (pg_wal_replay_pause): it goes on receiving, but
// what it shows stays as it is until ResumeReplay. It returns once the pause took effect.
func (r *Replicated) PauseReplay(t testing.TB) {
	t.Helper()
	r.onStandby(t, "SELECT pg_wal_replay_pause()")
	r.waitFor(t, "replay to pause", r.standby.ConnString(), "SELECT pg_get_wal_replay_pause_state() = 'paused'")
}

// ResumeReplay lets the standby apply WAL again (pg_wal_replay_resume).
func (r *Replicated) ResumeReplay(t testing.TB) {
	t.Helper()
	r.onStandby(t, "SELECT pg_wal_replay_resume()")
}

// StopStandby stops the standby (pg_ctl stop -m fast), as a replica that fails would.
func (r *Replicated) StopStandby(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.standby.Stop(ctx); err != nil {
		t.Fatalf("testdb: stop the standby: %v", err)
	}
}

// createReplayMarkers makes the table WaitReplayed writes to: a row committed on the primary
// and seen on a standby proves that the standby replayed everything committed before it.
const createReplayMarkers = "CREATE TABLE IF NOT EXISTS public.testdb_replay_markers (token text PRIMARY KEY)"

// WaitReplayed waits until the standby has replayed everything committed on the primary before
// the call. It commits a marker row on the primary (synchronously, though the test cluster
// commits asynchronously by default) and waits until the standby shows it.
func (r *Replicated) WaitReplayed(t testing.TB) {
	t.Helper()
	token := newSchemaName(time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := execOnce(ctx, r.primaryBase, "SET synchronous_commit = on",
		"INSERT INTO public.testdb_replay_markers VALUES ('"+token+"')")
	if err != nil {
		t.Fatalf("testdb: write a replay marker on the primary: %v", err)
	}
	if err := r.poll(replayWait, r.standby.ConnString(),
		"SELECT EXISTS (SELECT 1 FROM public.testdb_replay_markers WHERE token = '"+token+"')"); err != nil {
		t.Fatalf("testdb: the standby to replay the marker %s: %v\n%s", token, err, r.replayState())
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute) // the wait may have outlived the first
	defer cancel()
	if err := execOnce(ctx, r.primaryBase, "DELETE FROM public.testdb_replay_markers WHERE token = '"+token+"'"); err != nil {
		t.Fatalf("testdb: remove the replay marker: %v", err)
	}
}

// onStandby runs statement on the standby as the superuser.
func (r *Replicated) onStandby(t testing.TB, statement string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := execOnce(ctx, r.standby.ConnString(), statement); err != nil {
		t.Fatalf("testdb: %s on the standby: %v", statement, err)
	}
}

// replayWait bounds how long WaitReplayed waits. The standby replays all of the shared
// cluster's WAL, including what every other test process (another suite, too) writes, such as
// HNSW index builds; on a loaded 2-core machine that takes longer than a minute now and then.
const replayWait = 5 * time.Minute

// waitFor polls query, a boolean, on connString until it is true, for up to a minute.
func (r *Replicated) waitFor(t testing.TB, what, connString, query string) {
	t.Helper()
	if err := r.poll(time.Minute, connString, query); err != nil {
		t.Fatalf("testdb: %s: %v", what, err)
	}
}

// poll runs query, a boolean, on connString until it is true; it returns an error when the
// query fails or limit passes first.
func (r *Replicated) poll(limit time.Duration, connString, query string) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		var done bool
		if err := conn.QueryRow(ctx, query).Scan(&done); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("did not happen within %s", limit)
			}
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("did not happen within %s", limit)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// replayState describes how far the standby got, for a failure message: the primary's WAL
// position, the standby's received and replayed positions, and the end of its server log.
func (r *Replicated) replayState() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var primary, received, replayed, paused string
	if conn, err := pgx.Connect(ctx, r.primaryBase); err == nil {
		_ = conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&primary)
		conn.Close(ctx)
	}
	if conn, err := pgx.Connect(ctx, r.standby.ConnString()); err == nil {
		_ = conn.QueryRow(ctx, `SELECT coalesce(pg_last_wal_receive_lsn()::text, 'none'), coalesce(pg_last_wal_replay_lsn()::text, 'none'),
			pg_get_wal_replay_pause_state()`).Scan(&received, &replayed, &paused)
		conn.Close(ctx)
	}
	logFile := filepath.Join(r.standby.DataDir(), "log", "server.log")
	return fmt.Sprintf("primary at %s; standby received %s, replayed %s, replay %s; end of %s:\n%s",
		primary, received, replayed, paused, logFile, tailLines(logFile, 20))
}

// tailLines returns the last n lines of path, or why it cannot.
func tailLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
