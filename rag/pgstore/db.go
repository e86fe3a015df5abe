// Package pgstore is cita's PostgreSQL store: the schema's migrations, documents and chunks, and
// the two search arms (pgvector HNSW and BM25 over tsvector), each with the access filter in its
// own WHERE clause.
package pgstore

import (
	"context"

	"errors"
	"fmt"
	"log/slog"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgvectorpgx "github.com/pgvector/pgvector-go/pgx"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/migrations"
)

// migrateLockID serializes migrations across processes and schemas (CREATE EXTENSION races
// otherwise); any fixed number unlikely to collide with other applications works.
const migrateLockID = 0x63697461 // "cita"

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// PoolOptions adjusts a pool before it is created.
type PoolOptions struct {
	// Schema, when set, is created if missing and becomes the first entry of search_path, so one
	// database can hold isolated cita indexes (eval namespaces, tests).
	Schema   string
	MaxConns int32
}

// Open parses connString, applies opts, migrates the schema and returns a pool whose connections
// know the pgvector types. It returns an error naming the step that failed.
func Open(ctx context.Context, connString string, opts PoolOptions, logger *slog.Logger) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(connString, opts)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, cfg.ConnConfig, opts.Schema, logger); err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return pool, nil
}

// poolConfig parses connString and applies opts: the schema's search_path, the pool size, and
// the pgvector types on every connection.
func poolConfig(connString string, opts PoolOptions) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, ParseError(err)
	}
	if opts.Schema != "" {
		if !schemaName.MatchString(opts.Schema) {
			return nil, fmt.Errorf("schema name %q: use lower-case letters, digits and _", opts.Schema)
		}
		cfg.ConnConfig.RuntimeParams["search_path"] = opts.Schema + ",public"
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		// Load pgvector's library in this backend now: until it is loaded, hnsw.* settings are
		// mere placeholders, and a SET LOCAL made before the first vector operation of a fresh
		// connection was lost, so that connection's first searches ran without iterative scans
		// (ANN recall@10 0.18 instead of 0.88 on the bench corpus, depending on which
		// connection a query drew).
		if _, err := conn.Exec(ctx, "SELECT '[1]'::public.vector"); err != nil {
			return fmt.Errorf("load pgvector: %w", err)
		}
		return pgvectorpgx.RegisterTypes(ctx, conn)
	}
	return cfg, nil
}

// ParseError returns err, a failure to parse a connection string, without the string: pgx
// quotes it with the password redacted only as far as it can tell where the password ends
// (password="two words" leaves the second word). Other errors are returned wrapped.
func ParseError(err error) error {
	var parseErr *pgconn.ParseConfigError
	if errors.As(err, &parseErr) {
		return errors.New("parse database url: the connection string cannot be parsed; use postgres://USER:PASSWORD@HOST:5432/DB or host=HOST user=USER password='...' dbname=DB")
	}
	return fmt.Errorf("parse database url: %w", err)
}

// Migrate applies the embedded migrations to the schema in connConfig's search_path (creating
// schema first when set). Concurrent callers wait on an advisory lock instead of racing.
func Migrate(ctx context.Context, connConfig *pgx.ConnConfig, schema string, logger *slog.Logger) error {
	db := stdlib.OpenDB(*connConfig.Copy())
	defer db.Close()
	lockConn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect to database: %w", err)
	}
	defer lockConn.Close()
	if _, err := lockConn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrateLockID); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer lockConn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLockID) //nolint:errcheck // released with the session anyway
	if schema != "" {
		if _, err := lockConn.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return fmt.Errorf("create schema %s: %w", schema, err)
		}
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		var partial *goose.PartialError
		if errors.As(err, &partial) && partial.Failed != nil {
			return fmt.Errorf("apply migration %s: %w", partial.Failed.Source.Path, partial.Err)
		}
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		logger.InfoContext(ctx, "migration applied", slog.String("migration", r.Source.Path), slog.Duration("took", r.Duration))
	}
	return nil
}

// SchemaVersion returns the newest applied migration and the newest embedded one.
func SchemaVersion(ctx context.Context, connConfig *pgx.ConnConfig) (current, target int64, err error) {
	db := stdlib.OpenDB(*connConfig.Copy())
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return 0, 0, fmt.Errorf("load migrations: %w", err)
	}
	return provider.GetVersions(ctx)
}

// DropSchema removes a schema and everything in it (eval namespaces and tests clean up with it).
func DropSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	if !schemaName.MatchString(schema) || schema == "public" {
		return fmt.Errorf("refusing to drop schema %q", schema)
	}
	if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}
