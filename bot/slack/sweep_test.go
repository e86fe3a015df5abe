package slack_test

import (
	"context"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
)

// sweeper returns a sweeper of b's adapter on the shared database, due at once.
func (b *bundle) sweeper(t *testing.T) *bot.Sweeper {
	t.Helper()
	s, err := bot.NewSweeper(b.env.Bot, "slack", b.adapter, bot.SweeperOptions{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSweepWithdrawsAfterALostJoin is item 4 of issue 22: a member without hr joins a private channel and
// Slack never delivers member_joined_channel; nobody asks there again. One sweep run finds the
// new reader and withdraws the hr answer, and leaves the answers of a channel whose readers did
// not change. (An answer in the hr channel goes too, even one citing only public documents: its
// composer read the hr passages #hr's scope holds.)
func TestSweepWithdrawsAfterALostJoin(t *testing.T) {
	t.Parallel()
	a := setup(t)
	hr := a.mention(t, "EvW1", "CHR", "UHR", salaryQuestion)
	vac := a.mention(t, "EvW2", "C1", "U1", "Do remote workers need the company VPN?")
	if !hrLeak(hr.Form["blocks"]) || hrLeak(vac.Form["blocks"]) {
		t.Fatalf("setup: hr answer %q, vpn answer %q", hr.Form["blocks"], vac.Form["blocks"])
	}
	a.join(t, "", "CHR", "U1", []string{"UHR", "U1", "UBOT"}, true)
	a.settle(t)
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 0 {
		t.Fatalf("setup: withdrawn before any sweep (%d edits)", n)
	}
	ran, err := a.sweeper(t).RunOnce(context.Background())
	if err != nil || !ran {
		t.Fatalf("sweep: ran %v, %v", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 1 {
		t.Fatalf("the hr answer was withdrawn %d times by the sweep, want 1", n)
	}
	if n := len(a.redactions("C1", vac.Form["ts"])); n != 0 {
		t.Fatalf("the vpn answer in a channel whose readers did not change was withdrawn %d times", n)
	}
}

// TestSweepFailsClosedOnAChannelItCannotSee: Slack says the channel is not found (the bot was
// removed from it): who reads it cannot be known, so its answers are withdrawn.
func TestSweepFailsClosedOnAChannelItCannotSee(t *testing.T) {
	t.Parallel()
	a := setup(t)
	hr := a.mention(t, "EvW3", "CHR", "UHR", salaryQuestion)
	if !hrLeak(hr.Form["blocks"]) {
		t.Fatalf("setup: %s", hr.Form["blocks"])
	}
	a.fake.errorNext("conversations.info", "channel_not_found", 1)
	if ran, err := a.sweeper(t).RunOnce(context.Background()); err != nil || !ran {
		t.Fatalf("sweep: ran %v, %v; want a complete run", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 1 {
		t.Fatalf("the hr answer in a channel cita cannot see was withdrawn %d times, want 1", n)
	}
}

// TestSweepRetriesAPassingFailure: a Slack error that says nothing about the channel withdraws
// nothing; the run is incomplete (an error, not recorded as complete), so the next check runs
// it again at once instead of waiting an interval, and that run withdraws after a lost join.
func TestSweepRetriesAPassingFailure(t *testing.T) {
	t.Parallel()
	a := setup(t)
	hr := a.mention(t, "EvW4", "CHR", "UHR", salaryQuestion)
	if !hrLeak(hr.Form["blocks"]) {
		t.Fatalf("setup: %s", hr.Form["blocks"])
	}
	a.join(t, "", "CHR", "U1", []string{"UHR", "U1", "UBOT"}, true)
	a.fake.failNext("conversations.members", 1)
	s, err := bot.NewSweeper(a.env.Bot, "slack", a.adapter, bot.SweeperOptions{Every: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := s.RunOnce(context.Background()); !ran || err == nil {
		t.Fatalf("sweep with a failing listing: ran %v, error %v; want an incomplete run", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 0 {
		t.Fatalf("a passing failure withdrew the hr answer %d times", n)
	}
	time.Sleep(1100 * time.Millisecond) // the retry delay: Every/5, at least 1s
	if ran, err := s.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("retry: ran %v, %v", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 1 {
		t.Fatalf("the retried sweep withdrew the hr answer %d times, want 1", n)
	}
	if ran, err := s.RunOnce(context.Background()); ran || err != nil {
		t.Fatalf("a complete run was repeated within its interval: ran %v, %v", ran, err)
	}
}

// TestSweepCountsAFailedWithdrawalAsFailed: Slack says the channel is not found, and the database
// refuses the withdrawal of its answers. The hr answer is still shown, so the run is incomplete
// (an error, not recorded as complete) and redone at once: that run withdraws it. Counted as
// Closed, the run was recorded complete and the answer stayed visible until the next interval.
func TestSweepCountsAFailedWithdrawalAsFailed(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	hr := a.mention(t, "EvW5", "CHR", "UHR", salaryQuestion)
	if !hrLeak(hr.Form["blocks"]) {
		t.Fatalf("setup: %s", hr.Form["blocks"])
	}
	// A real refusal from PostgreSQL of any withdrawal, until the trigger is dropped.
	if _, err := a.env.Pool.Exec(ctx, `
		CREATE FUNCTION refuse_withdrawal() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'withdrawal refused by the test'; END $$;
		CREATE TRIGGER refuse_withdrawal BEFORE UPDATE ON bot_answers FOR EACH ROW
			WHEN (OLD.redacted_at IS NULL AND NEW.redacted_at IS NOT NULL) EXECUTE FUNCTION refuse_withdrawal();`); err != nil {
		t.Fatal(err)
	}
	s, err := bot.NewSweeper(a.env.Bot, "slack", a.adapter, bot.SweeperOptions{Every: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a.fake.errorNext("conversations.info", "channel_not_found", 1)
	if ran, err := s.RunOnce(ctx); !ran || err == nil {
		t.Fatalf("sweep with a refused withdrawal: ran %v, error %v; want an incomplete run", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 0 {
		t.Fatalf("setup: the refused withdrawal edited the answer %d times", n)
	}
	if _, err := a.env.Pool.Exec(ctx, `DROP TRIGGER refuse_withdrawal ON bot_answers`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the retry delay: Every/5, at least 1s
	a.fake.errorNext("conversations.info", "channel_not_found", 1)
	if ran, err := s.RunOnce(ctx); !ran || err != nil {
		t.Fatalf("retry: ran %v, %v", ran, err)
	}
	if n := len(a.redactions("CHR", hr.Form["ts"])); n != 1 {
		t.Fatalf("the retried sweep withdrew the hr answer %d times, want 1", n)
	}
}
