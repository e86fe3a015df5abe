package pgbot_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/pgbot"
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

// uncountingStore is the store whose next AnswerWritten fails once (a database fault after the
// write reached the platform): the write is not counted.
type uncountingStore struct {
	*pgbot.Store
	fail atomic.Bool
}

func (s *uncountingStore) AnswerWritten(ctx context.Context, id int64) (bot.Redaction, bool, error) {
	if s.fail.CompareAndSwap(true, false) {
		return bot.Redaction{}, false, errors.New("injected: the write could not be counted")
	}
	return s.Store.AnswerWritten(ctx, id)
}

// TestANoticeIsShownAgainOverAnUncountedWrite: replica B shows the notice of a withdrawn
// answer and records it shown; replica A's streamed text, checked before the withdrawal, lands
// after that notice, and the database fails to count it. A's next write finds the answer
// withdrawn: its notice must be shown again, although the database says the notice is shown,
// since A knows it wrote over it. (Skipping it left the answer's text in front of the reader who
// caused the withdrawal: the leak harness found it under load.)
func TestANoticeIsShownAgainOverAnUncountedWrite(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	id := answer(t, env, thread, "band B7?", "5,440,000", "", docID(t, env, "salaries.md"))
	if err := env.Bot.SetReplyRef(ctx, id, "1700000100.000001"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	shown := "Looking…"
	show := func(text string) func() error {
		return func() error { mu.Lock(); shown = text; mu.Unlock(); return nil }
	}
	storeA := &uncountingStore{Store: env.Bot}
	storeA.fail.Store(true)
	a, b := bot.NewAnswerWrites(storeA), bot.NewAnswerWrites(env.Bot)

	landed, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() { // replica A streams text: checked before the withdrawal, lands after the notice
		_, _, err := a.Write(ctx, id, func() error {
			close(landed)
			<-release
			return show("5,440,000 …")()
		})
		done <- err
	}()
	<-landed
	reds, err := env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", []rag.Scope{rag.MustScope("everyone")})
	if err != nil || len(reds) != 1 {
		t.Fatalf("withdrawal: %+v, %v", reds, err)
	}
	if err := b.Notice(ctx, reds[0], show("notice")); err != nil { // replica B
		t.Fatal(err)
	}
	close(release)
	if err := <-done; !errors.Is(err, bot.ErrWriteUnchecked) {
		t.Fatalf("A's write: %v, want ErrWriteUnchecked (not counted)", err)
	}
	if shown != "5,440,000 …" {
		t.Fatalf("setup: the message shows %q, want A's streamed text over B's notice", shown)
	}
	// A's final write finds the answer withdrawn and shows the notice instead.
	err = a.WriteOrNotice(ctx, id, show("the final answer"), func(ctx context.Context, red bot.Redaction) {
		if err := a.Notice(ctx, red, show("notice")); err != nil {
			t.Error(err)
		}
	})
	if !errors.Is(err, bot.ErrWriteWithdrawn) {
		t.Fatalf("A's final write: %v, want ErrWriteWithdrawn", err)
	}
	if shown != "notice" {
		t.Fatalf("the withdrawn answer's message shows %q, want the notice", shown)
	}
}
