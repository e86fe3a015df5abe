package pgcluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// duplicateDatabase is SQLSTATE 42P04, raised when CREATE DATABASE loses a race.
const duplicateDatabase = "42P04"

// createDatabase creates database name unless it exists, connecting with adminConnString.
func createDatabase(ctx context.Context, adminConnString, name string) error {
	conn, err := pgx.Connect(ctx, adminConnString)
	if err != nil {
		return fmt.Errorf("connect to new PostgreSQL server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("check database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == duplicateDatabase) {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}
