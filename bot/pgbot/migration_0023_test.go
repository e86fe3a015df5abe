package pgbot_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/migrations"
)

// TestMigrations0022And0023GoDownAndUpAgain takes a schema below migrations 0022 (readers'
// scopes, doubt, joiners) and 0023 (ephemeral) with an ephemeral reply, a Slack DM answer, a
// Discord DM answer and a channel answer recorded as before, and up again: the ephemeral reply
// stays ephemeral, both DM answers become visible to their askers alone (and stay memory), and
// the channel answer stays everyone's.
func TestMigrations0022And0023GoDownAndUpAgain(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	ephemeral := answer(t, env, conv("e"), "q", "a", "U1", vac)
	slackDM := answer(t, env, bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "DU1"}, "q", "a", "", vac)
	discordDM := answer(t, env, bot.ConversationKey{Platform: "discord", Channel: "651"}, "q", "a", "", vac)
	channel := answer(t, env, conv("c"), "q", "a", "", vac)
	var cs string
	if err := env.Pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&cs); err != nil {
		t.Fatal(err)
	}
	conn, _ := testdb.Schema(t)
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
	if _, err := provider.DownTo(ctx, 21); err != nil {
		t.Fatalf("down below 0022: %v", err)
	}
	// As answers were recorded before: visible_to set for ephemeral replies only.
	if _, err := env.Pool.Exec(ctx, `UPDATE bot_answers SET visible_to = '' WHERE id = ANY($1)`, []int64{slackDM, discordDM}); err != nil {
		t.Fatal(err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	for _, c := range []struct {
		id        int64
		visibleTo string
		ephemeral bool
		what      string
	}{{ephemeral, "U1", true, "the ephemeral reply"}, {slackDM, "U1", false, "the Slack DM answer"},
		{discordDM, "U1", false, "the Discord DM answer"}, {channel, "", false, "the channel answer"}} {
		rec, err := env.Bot.LoadAnswer(ctx, c.id)
		if err != nil || rec.VisibleTo != c.visibleTo || rec.Ephemeral != c.ephemeral {
			t.Errorf("%s: visible to %q, ephemeral %v (%v); want %q, %v", c.what, rec.VisibleTo, rec.Ephemeral, err, c.visibleTo, c.ephemeral)
		}
	}
}
