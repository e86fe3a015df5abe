package pgbot_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// TestANoticeRacingTheLastTextWriteIsEditedOnce is the flaky sweep test of issue 31, made
// deterministic: an answer's last text write has reached the platform but is not counted yet
// when a sweep withdraws the answer. The sweep's notice (loaded before the write was counted)
// waits for the answer's lock; the write, counted, finds the answer withdrawn and shows the
// notice too. Both used to edit the message (two writes where one will do, twice the rate
// budget under a 429); the second now sees the notice already shown and writes nothing, and the
// notice is recorded shown either way.
func TestANoticeRacingTheLastTextWriteIsEditedOnce(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	id := answer(t, env, thread, "band B7?", "5,440,000", "", docID(t, env, "salaries.md"))
	if err := env.Bot.SetReplyRef(ctx, id, "1700000100.000001"); err != nil {
		t.Fatal(err)
	}
	writes := bot.NewAnswerWrites(env.Bot)
	var edits atomic.Int32
	edit := func() error { edits.Add(1); return nil }

	landed, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the answer's last text write: it lands, then waits before being counted
		defer wg.Done()
		err := writes.WriteOrNotice(ctx, id, func() error { close(landed); <-release; return nil },
			func(ctx context.Context, red bot.Redaction) {
				if err := writes.Notice(ctx, red, edit); err != nil {
					t.Errorf("notice after the write: %v", err)
				}
			})
		if err != bot.ErrWriteWithdrawn {
			t.Errorf("the write over a withdrawn answer returned %v, want ErrWriteWithdrawn", err)
		}
	}()
	<-landed
	reds, err := env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", []rag.Scope{rag.MustScope("everyone")})
	if err != nil || len(reds) != 1 || reds[0].AnswerID != id {
		t.Fatalf("the sweep's withdrawal: %+v, %v", reds, err)
	}
	wg.Add(1)
	go func() { // the sweep's notice, loaded before the write was counted
		defer wg.Done()
		if err := writes.Notice(ctx, reds[0], edit); err != nil {
			t.Errorf("the sweep's notice: %v", err)
		}
	}()
	close(release)
	wg.Wait()

	if n := edits.Load(); n != 1 {
		t.Errorf("the message was edited into the notice %d times, want 1", n)
	}
	if red, pending, err := env.Bot.PendingRedaction(ctx, id); err != nil || pending {
		t.Errorf("the notice is still pending after it was shown: %+v, %v", red, err)
	}
}
