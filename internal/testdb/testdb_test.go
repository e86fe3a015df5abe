package testdb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func connect(t *testing.T, connString string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func schemaExists(t *testing.T, conn *pgx.Conn, name string) bool {
	t.Helper()
	var exists bool
	err := conn.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestConnStringHasExtensionsInPublic(t *testing.T) {
	t.Parallel()
	conn := connect(t, ConnString(t))
	rows, err := conn.Query(context.Background(),
		"SELECT extname, extnamespace::regnamespace::text FROM pg_extension WHERE extname = ANY($1) ORDER BY extname", extensions)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var name, schema string
		if err := rows.Scan(&name, &schema); err != nil {
			t.Fatal(err)
		}
		got[name] = schema
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, ext := range extensions {
		if got[ext] != "public" {
			t.Errorf("extension %s is in schema %q, want public", ext, got[ext])
		}
	}
}

func TestSchemaIsolatesAndDisappears(t *testing.T) {
	t.Parallel()
	admin := connect(t, ConnString(t))
	var first, second string
	t.Run("two schemas", func(t *testing.T) {
		csA, nameA := Schema(t)
		csB, nameB := Schema(t)
		first, second = nameA, nameB
		if nameA == nameB {
			t.Fatalf("two schemas share the name %s", nameA)
		}
		a, b := connect(t, csA), connect(t, csB)
		ctx := context.Background()
		for _, c := range []*pgx.Conn{a, b} {
			// What a migration does: the extension statement is a no-op, the table lands in the
			// test schema and the vector type resolves through public.
			for _, s := range []string{
				"CREATE EXTENSION IF NOT EXISTS vector",
				"CREATE TABLE items (id int, embedding vector(3))",
			} {
				if _, err := c.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		}
		if _, err := a.Exec(ctx, "INSERT INTO items VALUES (1, '[1,2,3]')"); err != nil {
			t.Fatal(err)
		}
		var inA, inB int
		if err := a.QueryRow(ctx, "SELECT count(*) FROM items").Scan(&inA); err != nil {
			t.Fatal(err)
		}
		if err := b.QueryRow(ctx, "SELECT count(*) FROM items").Scan(&inB); err != nil {
			t.Fatal(err)
		}
		if inA != 1 || inB != 0 {
			t.Fatalf("rows: %d in %s, %d in %s; want 1 and 0", inA, nameA, inB, nameB)
		}
		var tableSchema string
		if err := a.QueryRow(ctx, "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = 'items'::regclass").Scan(&tableSchema); err != nil {
			t.Fatal(err)
		}
		if tableSchema != nameA {
			t.Fatalf("unqualified table created in %q, want %q", tableSchema, nameA)
		}
		if !schemaExists(t, admin, nameA) {
			t.Fatalf("schema %s missing while its test runs", nameA)
		}
	})
	for _, name := range []string{first, second} {
		if schemaExists(t, admin, name) {
			t.Errorf("schema %s still exists after its test's cleanup", name)
		}
	}
}

func TestWithSearchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		connString  string
		wantOptions string
	}{
		{"keyword/value", "host=/tmp/pg port=5433 user=postgres dbname=cita_test sslmode=disable", "-csearch_path=t_x,public"},
		{"keyword/value with options", "host=/tmp/pg dbname=d options='-cstatement_timeout=5s'", "-cstatement_timeout=5s -csearch_path=t_x,public"},
		{"url", "postgres://u:p@localhost:5432/d?sslmode=disable", "-csearch_path=t_x,public"},
		{"url with options", "postgresql://u@localhost/d?options=-cwork_mem%3D64MB", "-cwork_mem=64MB -csearch_path=t_x,public"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := withSearchPath(tt.connString, "t_x,public")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := pgconn.ParseConfig(got)
			if err != nil {
				t.Fatalf("parse %q: %v", got, err)
			}
			if cfg.RuntimeParams["options"] != tt.wantOptions {
				t.Errorf("options = %q, want %q (from %q)", cfg.RuntimeParams["options"], tt.wantOptions, got)
			}
			base, _ := pgconn.ParseConfig(tt.connString)
			if cfg.Host != base.Host || cfg.Database != base.Database || cfg.User != base.User {
				t.Errorf("%q lost host/database/user of %q", got, tt.connString)
			}
		})
	}
}

func TestSchemaNamesCarryTheirAge(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_780_000_000, 0)
	name := newSchemaName(now)
	if !schemaPattern.MatchString(name) || len(name) > 63 {
		t.Fatalf("name %q does not match %v or is too long", name, schemaPattern)
	}
	created, ok := schemaCreated(name)
	if !ok || !created.Equal(now) {
		t.Fatalf("schemaCreated(%q) = %v, %v; want %v", name, created, ok, now)
	}
	for _, other := range []string{"public", "t_", "t_abc", "tenant_1_ff", "t_zz_XYZ"} {
		if _, ok := schemaCreated(other); ok {
			t.Errorf("schemaCreated(%q) claims a test schema", other)
		}
	}
}

func TestSetupReportsAnUnreachableServer(t *testing.T) {
	t.Setenv(EnvURL, "host=/nonexistent-cita-socket-dir port=1 user=postgres dbname=x sslmode=disable connect_timeout=2")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := setup(ctx)
	if err == nil || !strings.Contains(err.Error(), EnvURL) {
		t.Fatalf("setup error = %v, want one naming %s", err, EnvURL)
	}
}

// TestNewReplicatedStreamsAndPauses: the standby shows the test's schema, follows the primary,
// and stays as it was while replay is paused.
func TestNewReplicatedStreamsAndPauses(t *testing.T) {
	t.Parallel()
	r := NewReplicated(t)
	primary, standby := connect(t, r.Primary), connect(t, r.Standby)
	ctx := context.Background()
	if _, err := primary.Exec(ctx, "CREATE TABLE notes (n int); INSERT INTO notes VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		var n int
		if err := standby.QueryRow(ctx, "SELECT count(*) FROM notes").Scan(&n); err != nil {
			t.Fatalf("read the table on the standby (schema %s): %v", r.Schema, err)
		}
		return n
	}
	r.WaitReplayed(t)
	if got := count(); got != 1 {
		t.Fatalf("standby has %d rows, want 1", got)
	}
	r.PauseReplay(t)
	if _, err := primary.Exec(ctx, "INSERT INTO notes VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := count(); got != 1 {
		t.Fatalf("paused standby has %d rows, want still 1", got)
	}
	r.ResumeReplay(t)
	r.WaitReplayed(t)
	if got := count(); got != 2 {
		t.Fatalf("resumed standby has %d rows, want 2", got)
	}
}
