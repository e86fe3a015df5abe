package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// staleSchemaAge is how old a test schema must be before setup drops it as left behind by a
// killed test run.
const staleSchemaAge = 6 * time.Hour

// schemaPattern matches the names Schema makes: t_<unix seconds, base 36>_<random hex>.
var schemaPattern = regexp.MustCompile(`^t_([0-9a-z]+)_[0-9a-f]+$`)

// extensions are created once, in schema public, so that every test schema sees them through
// its search_path ("<schema>,public"). Were a migration's CREATE EXTENSION to run first inside a
// test schema, the extension would live there, other schemas could not see its types, and
// dropping the schema would drop it.
var extensions = []string{"vector", "unaccent", "pg_trgm"}

// prepareLockKey serialises prepareDatabase across test processes (pg_advisory_lock).
const prepareLockKey = 0x63697461 // "cita"

// Schema creates a fresh, uniquely named schema, registers a t.Cleanup that drops it with
// everything in it, and returns a connection string whose search_path is "<schema>,public",
// plus the schema name. On failure it calls t.Fatal.
func Schema(t testing.TB) (connString, schema string) {
	t.Helper()
	base := ConnString(t)
	schema = newSchemaName(time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := execOnce(ctx, base, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("testdb: create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// lock_timeout: a connection the test forgot to close fails the cleanup, not the run.
		err := execOnce(ctx, base, "SET lock_timeout = '20s'",
			"DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		if err != nil {
			t.Errorf("testdb: drop schema %s (close every connection and transaction the test opened): %v", schema, err)
		}
	})
	connString, err := withSearchPath(base, schema+",public")
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return connString, schema
}

// newSchemaName returns t_<unix seconds in base 36>_<12 random hex digits>.
func newSchemaName(now time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t_" + strconv.FormatInt(now.Unix(), 36) + "_" + hex.EncodeToString(b[:])
}

// schemaCreated returns when Schema made the named schema, and false for other names.
func schemaCreated(name string) (time.Time, bool) {
	m := schemaPattern.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	secs, err := strconv.ParseInt(m[1], 36, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(secs, 0), true
}

// withSearchPath returns connString with the runtime option search_path set, keeping any
// options already there. It accepts URL and keyword/value forms.
func withSearchPath(connString, searchPath string) (string, error) {
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return "", fmt.Errorf("parse test connection string: %w", err)
	}
	options := strings.TrimSpace(cfg.RuntimeParams["options"] + " -csearch_path=" + searchPath)
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err != nil {
			return "", fmt.Errorf("parse test connection URL: %w", err)
		}
		q := u.Query()
		q.Set("options", options)
		// pgx decodes %20 but not '+' as a space; Encode writes a literal '+' as %2B.
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
		return u.String(), nil
	}
	// In keyword/value form the last occurrence of a keyword wins.
	escaped := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(options)
	return strings.TrimSpace(connString) + " options='" + escaped + "'", nil
}

// prepareDatabase creates the extensions in public and drops test schemas left by killed runs.
func prepareDatabase(ctx context.Context, connString string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", prepareLockKey); err != nil {
		return fmt.Errorf("take setup lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", prepareLockKey) }()
	for _, ext := range extensions {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{ext}.Sanitize()+" WITH SCHEMA public"); err != nil {
			return fmt.Errorf("create extension %s (is it installed? run scripts/install-postgres.sh): %w", ext, err)
		}
	}
	if _, err := conn.Exec(ctx, createReplayMarkers); err != nil {
		return fmt.Errorf("create the standbys' replay markers: %w", err)
	}
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'")
	if err != nil {
		return fmt.Errorf("list test schemas: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("list test schemas: %w", err)
	}
	for _, name := range names {
		if created, ok := schemaCreated(name); ok && time.Since(created) > staleSchemaAge {
			if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
				return fmt.Errorf("drop stale test schema %s: %w", name, err)
			}
		}
	}
	return nil
}

// execOnce opens a connection, runs statements in order, and closes it.
func execOnce(ctx context.Context, connString string, statements ...string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, s := range statements {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
