package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

// TestHousekeepingPrunesAnswersPastRetention runs one pass of `cita serve`'s housekeeping: an
// answer older than the retention goes, a recent one stays.
func TestHousekeepingPrunesAnswersPastRetention(t *testing.T) {
	ctx := context.Background()
	pool, _ := pgstoretest.Open(t)
	store := pgbot.New(pool)
	conv := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1"}
	save := func(text string) int64 {
		id, err := store.SaveAnswer(ctx, &bot.AnswerRecord{Conversation: conv, AskerID: "U1", Question: "q", StandaloneQuery: "q",
			Text: text, ScopeGroups: []string{"everyone"}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	old, recent := save("old"), save("recent")
	if _, err := pool.Exec(ctx, `UPDATE bot_answers SET created_at = now() - interval '31 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	hk := housekeeping{store: store, cache: pgstore.NewCache(pool, pgstore.CacheOptions{}, slog.New(slog.DiscardHandler)),
		retention: 30 * 24 * time.Hour, logger: slog.New(slog.DiscardHandler)}
	hk.once(ctx)
	if _, err := store.LoadAnswer(ctx, old); err == nil {
		t.Error("the answer past retention survived")
	}
	if _, err := store.LoadAnswer(ctx, recent); err != nil {
		t.Errorf("the recent answer: %v", err)
	}
}
