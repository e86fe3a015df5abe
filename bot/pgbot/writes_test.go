package pgbot_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// TestEveryWriteIsCheckedAgainstTheRecordedReaders: the check before a write withdraws an
// answer shown in a channel as soon as a recorded reader may not read a document it used,
// whichever replica recorded them; it holds the write while the channel is in doubt; it
// leaves ephemeral replies and other channels alone.
func TestEveryWriteIsCheckedAgainstTheRecordedReaders(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal := docID(t, env, "vacation.md"), docID(t, env, "salaries.md")
	hr := answer(t, env, thread, "band B7?", "5,440,000", "", sal)
	vacation := answer(t, env, thread, "vacation?", "22 days", "", vac)
	ephemeral := answer(t, env, thread, "band B7 privately?", "5,440,000", "UHR", sal)
	check := func(id int64, want bot.WriteCheck) {
		t.Helper()
		if _, got, err := env.Bot.CheckWrite(ctx, id); err != nil || got != want {
			t.Fatalf("answer %d: check %d (%v), want %d", id, got, err, want)
		}
	}
	// Never recorded: nothing to check against.
	check(hr, bot.WriteAllowed)
	if _, _, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", []rag.Scope{rag.MustScope("everyone", "hr")}, 0); err != nil {
		t.Fatal(err)
	}
	check(hr, bot.WriteAllowed)
	// A guest joins on another replica: their scope is recorded, and the next write of the hr
	// answer finds it withdrawn.
	if _, err := env.Bot.AddReader(ctx, "slack", "T1", "C1", "UGUEST", rag.MustScope("everyone")); err != nil {
		t.Fatal(err)
	}
	red, got, err := env.Bot.CheckWrite(ctx, hr)
	if err != nil || got != bot.WriteWithdrawn || red.AnswerID != hr || red.Conversation != thread {
		t.Fatalf("hr answer after the join: %+v %d %v; want withdrawn with its notice", red, got, err)
	}
	if turns, _ := env.Bot.RecentTurns(ctx, thread, rag.MustScope("everyone", "hr"), 10); len(turns) != 2 {
		t.Fatalf("the withdrawn answer still feeds memory: %d turns, want the vacation answer's 2", len(turns))
	}
	check(vacation, bot.WriteAllowed)
	check(ephemeral, bot.WriteAllowed)
	// The written count after a write withdraws too.
	hr2 := answer(t, env, thread, "band B7 again?", "5,440,000", "", sal)
	if _, withdrawn, err := env.Bot.AnswerWritten(ctx, hr2); err != nil || !withdrawn {
		t.Fatalf("after a write of an answer a recorded reader may not read: withdrawn %v (%v)", withdrawn, err)
	}
	// In doubt: held, until readers read after it are recorded.
	if err := env.Bot.MarkDoubt(ctx, "slack", "T1", "C1"); err != nil {
		t.Fatal(err)
	}
	check(vacation, bot.WriteHeld)
	check(ephemeral, bot.WriteAllowed)
	st, _ := env.Bot.AudienceStates(ctx, "slack", "T1", bot.ChannelSubject("C1"))
	if _, _, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", []rag.Scope{rag.MustScope("everyone")}, st[0].Version); err != nil {
		t.Fatal(err)
	}
	check(vacation, bot.WriteAllowed)
	// A write held too long withdraws its answer itself.
	red, ok, err := env.Bot.WithdrawAnswer(ctx, vacation)
	if err != nil || !ok || red.AnswerID != vacation {
		t.Fatalf("withdraw a held answer: %+v %v %v", red, ok, err)
	}
	check(vacation, bot.WriteWithdrawn)
	if _, ok, err := env.Bot.WithdrawAnswer(ctx, ephemeral); err != nil || ok {
		t.Fatalf("an ephemeral reply was withdrawn: %v %v", ok, err)
	}
}
