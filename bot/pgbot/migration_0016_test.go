package pgbot_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/migrations"
)

// TestMigration0016GoesDownAndUpAgain takes a schema holding recorded changes, a notice and a
// commented rating below migration 0016 and up again.
func TestMigration0016GoesDownAndUpAgain(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	id := answer(t, env, conv("m"), "q", "a", "", vac)
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: id, Conversation: conv("m"), UserID: "U2", Rating: -1}); err != nil {
		t.Fatal(err)
	}
	if err := env.Bot.CommentFeedback(ctx, bot.Feedback{AnswerID: id, Conversation: conv("m"), UserID: "U2"}, "wrong"); err != nil {
		t.Fatal(err)
	}
	recordChange(t, env, 1, vac, bot.SourceUpdated)
	if _, err := env.Bot.ClaimSourceNotices(ctx, []string{"slack"}); err != nil {
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
	if _, err := provider.DownTo(ctx, 15); err != nil {
		t.Fatalf("down below 0016: %v", err)
	}
	var tables int
	if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
		AND tablename IN ('source_changes', 'bot_source_notices')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("after going down: %d of 0016's tables left (%v)", tables, err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if _, err := env.Bot.ClaimSourceNotices(ctx, []string{"slack"}); err != nil {
		t.Fatalf("after going up again: %v", err)
	}
}
