package pgbot_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/migrations"
)

// TestMigrations0019And0020GoDownAndUpAgain takes a schema holding a sweep's record and a
// public answer below migrations 0019 (bot_sweeps) and 0020 (bot_answers.public) and up again.
func TestMigrations0019And0020GoDownAndUpAgain(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	if ok, err := env.Bot.ClaimSweep(ctx, "slack", "r/1", time.Second, time.Second, time.Second); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	answer(t, env, conv("m"), "q", "a", "", docID(t, env, "vacation.md"))
	if _, err := env.Pool.Exec(ctx, `UPDATE bot_answers SET public = true`); err != nil {
		t.Fatal(err)
	}
	var cs string
	if err := env.Pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&cs); err != nil {
		t.Fatal(err)
	}
	conn, _ := testdb.Schema(t) // a connection string of the shared cluster; pointed at env's schema below
	db, err := sql.Open("pgx", conn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `SET search_path TO "`+cs+`", public`); err != nil {
		t.Fatal(err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.DownTo(ctx, 18); err != nil {
		t.Fatalf("down below 0019: %v", err)
	}
	var left int
	if err := env.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'bot_sweeps')
		+ (SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'bot_answers' AND column_name = 'public')`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("after going down: %d of their table and column left (%v)", left, err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if _, _, err := env.Bot.SweepLag(ctx, "slack"); err != nil {
		t.Fatalf("after going up again: %v", err)
	}
}
