package pgcluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestParsePostmasterPID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    postmasterPID
		wantErr bool
	}{
		{
			name: "ready server",
			text: "4242\n/var/lib/cita/postgres\n1732880000\n5433\n/tmp/cita-pg-0123\n\n  5433001    327680\nready   \n",
			want: postmasterPID{pid: 4242, port: 5433, socketDir: "/tmp/cita-pg-0123", status: "ready"},
		},
		{
			name: "starting server, no socket line yet",
			text: "17\n/data\n1732880000\n5433\n",
			want: postmasterPID{pid: 17, port: 5433},
		},
		{name: "garbage", text: "hello\n", wantErr: true},
		{name: "empty", text: "", wantErr: true},
		{name: "bad port", text: "17\n/data\n1\nfive\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePostmasterPID(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && *got != tt.want {
				t.Fatalf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestProcessAlive(t *testing.T) {
	t.Parallel()
	if processAlive(os.Getpid()) {
		t.Error("the test binary is not postgres, so its pid must not count as a live server")
	}
	if processAlive(1 << 30) {
		t.Error("a pid that does not exist counts as alive")
	}
}

func TestParseMajorVersion(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)\n": "15",
		"postgres (PostgreSQL) 17.2":                             "17",
		"postgres (PostgreSQL) 16beta1":                          "16",
		"postgres (PostgreSQL) 9.6.24":                           "9.6",
	}
	for in, want := range tests {
		got, err := parseMajorVersion(in)
		if err != nil || got != want {
			t.Errorf("parseMajorVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseMajorVersion("bash: postgres: not found"); err == nil {
		t.Error("want an error for output without a version")
	}
}

func TestVectorVersionCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		control string
		ok      bool
	}{
		{"comment = 'x'\ndefault_version = '0.8.0'\n", true},
		{"default_version='0.8.1'", true},
		{"default_version = '0.10.0'", true},
		{"default_version = '1.0'", true},
		{"default_version = '0.7.4'", false},
		{"default_version = '0.8.0-beta'", false},
		{"comment = 'no version'", false},
	}
	for _, tt := range tests {
		version := controlDefaultVersion([]byte(tt.control))
		if got := versionAtLeast(version, minVectorVersion); got != tt.ok {
			t.Errorf("control %q: version %q at least 0.8.0 = %v, want %v", tt.control, version, got, tt.ok)
		}
	}
}

func TestSocketDirFor(t *testing.T) {
	t.Parallel()
	short := "/var/lib/cita/postgres"
	if got := socketDirFor(short, 5433); got != short {
		t.Errorf("short data dir: socket dir %q, want the data dir", got)
	}
	long := "/" + strings.Repeat("d", 95)
	other := long + "x"
	gotLong, gotOther := socketDirFor(long, 5433), socketDirFor(other, 5433)
	if !strings.HasPrefix(gotLong, shortSocketParent+"/cita-pg-") || len(filepath.Join(gotLong, socketFileName(5433))) > 107 {
		t.Errorf("long data dir: socket dir %q, want a short dir under %s", gotLong, shortSocketParent)
	}
	if gotLong == gotOther {
		t.Errorf("two data dirs share socket dir %q", gotLong)
	}
	if socketDirFor(long, 5433) != gotLong {
		t.Error("socket dir is not stable for one data dir")
	}
}

func TestConnStringQuotingRoundTrips(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"/tmp/plain", "/tmp/with space", `/tmp/it's`, `/tmp/back\slash`} {
		c := &Cluster{socketDir: dir, port: 5433, database: "my db"}
		cfg, err := pgconn.ParseConfig(c.ConnString())
		if err != nil {
			t.Fatalf("parse %q: %v", c.ConnString(), err)
		}
		if cfg.Host != dir || cfg.Port != 5433 || cfg.Database != "my db" || cfg.User != "postgres" {
			t.Errorf("%q parsed to host=%q port=%d db=%q user=%q", c.ConnString(), cfg.Host, cfg.Port, cfg.Database, cfg.User)
		}
	}
}

func TestServerEnvDropsPostgresVariables(t *testing.T) {
	t.Parallel()
	got := serverEnv([]string{"PATH=/bin", "PGDATA=/elsewhere", "PGPORT=1", "LC_ALL=de_DE.UTF-8", "HOME=/root"})
	want := []string{"PATH=/bin", "HOME=/root", "LC_MESSAGES=C"}
	if !slices.Equal(got, want) {
		t.Fatalf("serverEnv = %v, want %v", got, want)
	}
}

func TestSettingsText(t *testing.T) {
	t.Parallel()
	m := Machine{Memory: 24 * gib, CPUs: 2, SharedMemory: 12 * gib, FreeDisk: 200 * gib}
	durable, fast := settingsText(m, false), settingsText(m, true)
	for _, want := range []string{"shared_buffers = '6144MB'", "maintenance_work_mem = '6144MB'", "max_parallel_maintenance_workers = 1",
		"max_wal_size = '10240MB'", "work_mem = '32MB'", "max_connections = 100", "jit = off"} {
		if !strings.Contains(durable, want) {
			t.Errorf("settings lack %q:\n%s", want, durable)
		}
	}
	if strings.Contains(durable, "fsync") {
		t.Errorf("durable settings turn fsync off:\n%s", durable)
	}
	for _, want := range []string{"fsync = off", "synchronous_commit = off", "full_page_writes = off", "shared_buffers = '512MB'"} {
		if !strings.Contains(fast, want) {
			t.Errorf("fast settings lack %q", want)
		}
	}
}

// TestSized checks the sizes chosen for a few machines: the HNSW build's memory follows the
// machine, up to 8 GB; builds run in parallel only when their memory fits in /dev/shm; the WAL
// follows the free disk, from 1 to 16 GB.
func TestSized(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		m    Machine
		want Sizes
	}{
		{"the 2-core, 24 GB machine", Machine{Memory: 24 * gib, CPUs: 2, SharedMemory: 12 * gib, FreeDisk: 200 * gib},
			Sizes{SharedBuffers: 6 * gib, EffectiveCache: 18 * gib, MaintenanceWorkMem: 6 * gib, AutovacuumWorkMem: 768 * mib,
				MaxWALSize: 10 * gib, ParallelMaintenanceWorkers: 1}},
		{"a container with a small /dev/shm", Machine{Memory: 8 * gib, CPUs: 4, SharedMemory: 64 * mib, FreeDisk: 10 * gib},
			Sizes{SharedBuffers: 2 * gib, EffectiveCache: 6 * gib, MaintenanceWorkMem: 2 * gib, AutovacuumWorkMem: 256 * mib,
				MaxWALSize: gib, ParallelMaintenanceWorkers: 0}},
		{"a large machine", Machine{Memory: 256 * gib, CPUs: 32, SharedMemory: 128 * gib, FreeDisk: 4096 * gib},
			Sizes{SharedBuffers: 8 * gib, EffectiveCache: 64 * gib, MaintenanceWorkMem: 8 * gib, AutovacuumWorkMem: gib,
				MaxWALSize: 16 * gib, ParallelMaintenanceWorkers: 31}},
		{"nothing known", Machine{Memory: 2 * gib, CPUs: 1},
			Sizes{SharedBuffers: 512 * mib, EffectiveCache: 1536 * mib, MaintenanceWorkMem: 512 * mib, AutovacuumWorkMem: 64 * mib,
				MaxWALSize: gib, ParallelMaintenanceWorkers: 0}},
	}
	for _, c := range cases {
		if got := Sized(c.m, false); got != c.want {
			t.Errorf("%s: Sized = %+v, want %+v", c.name, got, c.want)
		}
	}
	// 1M vectors of 384 dimensions fit the 24 GB machine's build memory.
	if need := 1_000_000 * HNSWBytesPerVector(384); need > Sized(cases[0].m, false).MaintenanceWorkMem {
		t.Errorf("a 1M-vector graph needs %d MB, more than the build memory", need/mib)
	}
}

func TestDefaultDataDir(t *testing.T) {
	t.Setenv("CITA_DATA_DIR", "/srv/cita-pg")
	if got := DefaultDataDir(); got != "/srv/cita-pg" {
		t.Errorf("with CITA_DATA_DIR: %q", got)
	}
	t.Setenv("CITA_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "/home/u/.data")
	want := "/home/u/.data/cita/postgres"
	if os.Geteuid() == 0 {
		want = "/var/lib/cita/postgres"
	}
	if got := DefaultDataDir(); got != want {
		t.Errorf("DefaultDataDir() = %q, want %q", got, want)
	}
}
