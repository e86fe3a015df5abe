package pgcluster

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestEnsureInitStartReuseStop(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(testBaseDir(t), "pg")
	c := ensureForTest(t, dataDir)
	if !c.initialised || !c.started {
		t.Fatalf("first Ensure: initialised=%v started=%v, want both true", c.initialised, c.started)
	}
	if got := queryInt(t, c.ConnString(), "SELECT 1"); got != 1 {
		t.Fatalf("SELECT 1 = %d", got)
	}
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, c.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	var db, workMem, fsync, listen string
	err = conn.QueryRow(ctx, "SELECT current_database(), current_setting('work_mem'), current_setting('fsync'), current_setting('listen_addresses')").
		Scan(&db, &workMem, &fsync, &listen)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if db != DefaultDatabase || workMem != "32MB" || fsync != "off" || listen != "" {
		t.Errorf("database=%q work_mem=%q fsync=%q listen_addresses=%q, want %q 32MB off ''", db, workMem, fsync, listen, DefaultDatabase)
	}
	execSQL(t, c.ConnString(),
		"CREATE EXTENSION vector",
		"CREATE TABLE kept (v vector(2))",
		"INSERT INTO kept VALUES ('[3,4]')")
	if got := queryInt(t, c.ConnString(), "SELECT (v <-> '[0,0]')::int FROM kept"); got != 5 {
		t.Fatalf("vector distance = %d, want 5", got)
	}

	again, err := Ensure(ctx, Options{DataDir: dataDir, Fast: true})
	if err != nil {
		t.Fatalf("second Ensure: %v", err)
	}
	if again.initialised || again.started || again.pid != c.pid {
		t.Fatalf("second Ensure: initialised=%v started=%v pid=%d, want a reuse of pid %d", again.initialised, again.started, again.pid, c.pid)
	}

	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if running, err := Status(ctx, dataDir); err != nil || running {
		t.Fatalf("Status after Stop = %v, %v; want false", running, err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop of a stopped cluster: %v", err)
	}

	restarted, err := Ensure(ctx, Options{DataDir: dataDir, Fast: true})
	if err != nil {
		t.Fatalf("Ensure after Stop: %v", err)
	}
	if restarted.initialised || !restarted.started {
		t.Fatalf("Ensure after Stop: initialised=%v started=%v, want false true", restarted.initialised, restarted.started)
	}
	if got := queryInt(t, restarted.ConnString(), "SELECT count(*) FROM kept"); got != 1 {
		t.Fatalf("rows kept across restart = %d, want 1", got)
	}
}

func TestEnsureRestartsKilledServer(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(testBaseDir(t), "pg")
	c := ensureForTest(t, dataDir)
	if err := syscall.Kill(c.pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 postmaster %d: %v", c.pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for processAlive(c.pid) {
		if time.Now().After(deadline) {
			t.Fatalf("postmaster %d still alive 10s after SIGKILL", c.pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx := testContext(t)
	if running, err := Status(ctx, dataDir); err != nil || running {
		t.Fatalf("Status after kill = %v, %v; want false", running, err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
		t.Fatalf("want the stale postmaster.pid left by the killed server: %v", err)
	}
	again, err := Ensure(ctx, Options{DataDir: dataDir, Fast: true})
	if err != nil {
		t.Fatalf("Ensure after kill: %v", err)
	}
	if !again.started || again.pid == c.pid {
		t.Fatalf("Ensure after kill: started=%v pid=%d (old %d), want a new server", again.started, again.pid, c.pid)
	}
	if got := queryInt(t, again.ConnString(), "SELECT 1"); got != 1 {
		t.Fatalf("SELECT 1 = %d", got)
	}
}

func TestEnsureConcurrentOnFreshDir(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(testBaseDir(t), "pg")
	stopAtCleanup(t, dataDir)
	ctx := testContext(t)
	const callers = 3
	clusters := make([]*Cluster, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			clusters[i], errs[i] = Ensure(ctx, Options{DataDir: dataDir, Fast: true})
		})
	}
	wg.Wait()
	initialised, started := 0, 0
	for i, c := range clusters {
		if errs[i] != nil {
			t.Fatalf("Ensure #%d: %v", i, errs[i])
		}
		if c.pid != clusters[0].pid {
			t.Errorf("Ensure #%d pid %d, #0 pid %d: want one server", i, c.pid, clusters[0].pid)
		}
		if c.initialised {
			initialised++
		}
		if c.started {
			started++
		}
	}
	if initialised != 1 || started != 1 {
		t.Fatalf("initdb ran %d times and the server started %d times, want 1 and 1", initialised, started)
	}
	if got := queryInt(t, clusters[1].ConnString(), "SELECT 1"); got != 1 {
		t.Fatalf("SELECT 1 = %d", got)
	}
}

func TestEnsureLongDataDirUsesShortSocketDir(t *testing.T) {
	t.Parallel()
	dataDir := testBaseDir(t)
	for len(dataDir) < 120 {
		dataDir = filepath.Join(dataDir, "a-rather-long-directory-name")
	}
	if err := os.MkdirAll(filepath.Dir(dataDir), 0o755); err != nil {
		t.Fatal(err)
	}
	c := ensureForTest(t, dataDir)
	t.Cleanup(func() { _ = os.RemoveAll(c.socketDir) }) // runs after the server stops
	if strings.HasPrefix(c.socketDir, dataDir) || len(filepath.Join(c.socketDir, socketFileName(c.port))) > 107 {
		t.Fatalf("socket dir %q for a %d-byte data dir: want a short one outside it", c.socketDir, len(dataDir))
	}
	if got := queryInt(t, c.ConnString(), "SELECT 1"); got != 1 {
		t.Fatalf("SELECT 1 = %d", got)
	}
	if running, err := Status(context.Background(), dataDir); err != nil || !running {
		t.Fatalf("Status = %v, %v; want true", running, err)
	}
}

func TestInitdbFallsBackWhenLocaleIsMissing(t *testing.T) {
	t.Parallel()
	user, err := lookupServerUser()
	if err != nil {
		t.Fatal(err)
	}
	binDir, err := findBinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(testBaseDir(t), "pg")
	r := &resolved{dataDir: dir, binDir: binDir, fast: true, user: user,
		logger: slog.New(slog.DiscardHandler), locales: []string{"xx_NO.SUCH-LOCALE", "C"}}
	if err := r.initdbInto(testContext(t), dir); err != nil {
		t.Fatalf("initdb with a missing first locale: %v", err)
	}
	conf, err := os.ReadFile(filepath.Join(dir, "postgresql.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), "lc_messages = 'C'") || !strings.Contains(string(conf), includeLine) {
		t.Fatalf("postgresql.conf lacks the C locale or the cita include line")
	}
}
