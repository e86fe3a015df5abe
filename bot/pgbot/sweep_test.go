package pgbot_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
)

// blockingSweep is a ChannelSweep that counts its runs and, when gate is set, holds each run
// until gate is closed (or the run's context ends).
type blockingSweep struct {
	runs    atomic.Int32
	started chan struct{}
	gate    chan struct{}
}

func (b *blockingSweep) Sweep(ctx context.Context) (bot.SweepResult, error) {
	b.runs.Add(1)
	if b.started != nil {
		b.started <- struct{}{}
	}
	if b.gate != nil {
		select {
		case <-b.gate:
		case <-ctx.Done():
			return bot.SweepResult{}, ctx.Err()
		}
	}
	return bot.SweepResult{Channels: 1}, nil
}

// TestTwoReplicasDoNotSweepAtOnce: while replica A's run is in progress, replica B's check
// finds the sweep held and does not run it; once A completed, neither runs it again within the
// interval, and the lag read from the database is A's completion.
func TestTwoReplicasDoNotSweepAtOnce(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	target := &blockingSweep{started: make(chan struct{}, 2), gate: make(chan struct{})}
	a, err := bot.NewSweeper(env.Bot, "slack", target, bot.SweeperOptions{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bot.NewSweeper(env.Bot, "slack", target, bot.SweeperOptions{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, ever, err := env.Bot.SweepLag(ctx, "slack"); ever || err != nil {
		t.Fatalf("lag before any run: ever %v, %v", ever, err)
	}
	done := make(chan error, 1)
	go func() {
		ran, err := a.RunOnce(ctx)
		if !ran && err == nil {
			t.Error("replica A did not claim a sweep nobody held")
		}
		done <- err
	}()
	<-target.started
	for range 3 {
		if ran, err := b.RunOnce(ctx); ran || err != nil {
			t.Fatalf("replica B ran the sweep while A held it: ran %v, %v", ran, err)
		}
	}
	close(target.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ran, err := b.RunOnce(ctx); ran || err != nil {
		t.Fatalf("replica B repeated a complete sweep within the interval: ran %v, %v", ran, err)
	}
	if n := target.runs.Load(); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	lag, ever, err := env.Bot.SweepLag(ctx, "slack")
	if err != nil || !ever || lag < 0 || lag > time.Minute {
		t.Fatalf("lag after a complete run: %s (ever %v, %v)", lag, ever, err)
	}
	// Another sweep name is claimed on its own.
	if ran, err := b.RunOnce(ctx); ran || err != nil {
		t.Fatal(ran, err)
	}
	other, err := bot.NewSweeper(env.Bot, "discord", &blockingSweep{}, bot.SweeperOptions{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := other.RunOnce(ctx); !ran || err != nil {
		t.Fatalf("the discord sweep: ran %v, %v", ran, err)
	}
}

// TestADeadReplicasSweepIsTakenOver: a replica that claimed the sweep and died (its claim not
// renewed) holds it for Hold at most; then another replica runs it (at its next check, a
// failed run's retry delay after the dead one started).
func TestADeadReplicasSweepIsTakenOver(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	if ok, err := env.Bot.ClaimSweep(ctx, "slack", "dead/1", 300*time.Millisecond, time.Hour, time.Second); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	target := &blockingSweep{}
	s, err := bot.NewSweeper(env.Bot, "slack", target, bot.SweeperOptions{Every: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := s.RunOnce(ctx); ran || err != nil {
		t.Fatalf("ran while the claim held: %v, %v", ran, err)
	}
	time.Sleep(1100 * time.Millisecond) // past the claim and the retry delay
	if ran, err := s.RunOnce(ctx); !ran || err != nil {
		t.Fatalf("the dead replica's sweep was not taken over: ran %v, %v", ran, err)
	}
	if renewed, err := env.Bot.RenewSweep(ctx, "slack", "dead/1", time.Minute); renewed || err != nil {
		t.Fatalf("the dead replica renewed a claim it lost: %v, %v", renewed, err)
	}
}

// TestALostClaimStopsTheRun: when the claim cannot be renewed (another replica took it over
// after this one stalled), the run is cancelled and not recorded as complete.
func TestALostClaimStopsTheRun(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	target := &blockingSweep{started: make(chan struct{}, 1), gate: make(chan struct{})}
	s, err := bot.NewSweeper(env.Bot, "slack", target, bot.SweeperOptions{Every: time.Hour, Hold: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.RunOnce(ctx); done <- err }()
	<-target.started
	if _, err := env.Pool.Exec(ctx, `UPDATE bot_sweeps SET holder = 'other/1'`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a run whose claim was lost reported success")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run went on after its claim was lost")
	}
	if _, ever, err := env.Bot.SweepLag(ctx, "slack"); ever || err != nil {
		t.Fatalf("a cancelled run was recorded as complete (%v)", err)
	}
}
