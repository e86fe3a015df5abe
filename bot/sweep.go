package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// SweepLease is the database's record of who runs a sweep: one replica at a time, and each
// sweep once per interval across every replica. bot/pgbot implements it.
type SweepLease interface {
	// ClaimSweep takes sweep name for holder for hold, when nobody holds it, it did not complete
	// within every and did not start within retry. It reports whether holder now holds it.
	ClaimSweep(ctx context.Context, name, holder string, hold, every, retry time.Duration) (bool, error)
	// RenewSweep extends holder's claim by hold; false when holder no longer holds it.
	RenewSweep(ctx context.Context, name, holder string, hold time.Duration) (bool, error)
	// FinishSweep releases holder's claim and, when complete, records now as the last complete
	// run.
	FinishSweep(ctx context.Context, name, holder string, complete bool) error
}

// ChannelSweep is one platform's reconciliation: it re-lists who reads every channel showing
// answers and withdraws what they may no longer read. The Slack and Discord adapters
// implement it.
type ChannelSweep interface {
	Sweep(ctx context.Context) (SweepResult, error)
}

// SweepResult counts one run of a ChannelSweep.
type SweepResult struct {
	// Channels is how many channels showing answers were checked.
	Channels int
	// Failed counts the channels whose readers could not be listed for a passing reason (a
	// network error, a rate limit past its retries, a database error): nothing was withdrawn
	// there; the run is incomplete and is retried soon.
	Failed int
	// Closed counts the channels the platform says cita can no longer see (removed from the
	// channel, channel gone): who reads them cannot be known, so every answer shown there that
	// used a document was withdrawn, as a failed join check does.
	Closed int
}

// SweepObserver counts sweep runs (internal/metrics implements it).
type SweepObserver interface {
	ObserveSweep(name string, res SweepResult, err error)
}

// SweeperOptions tune a Sweeper; zero values take the defaults.
type SweeperOptions struct {
	// Every is how often the sweep completes, across replicas (required, > 0).
	Every time.Duration
	// Hold is how long a claim lasts without renewal (default 2m); the holder renews it every
	// Hold/3, so a replica that dies mid-run frees the sweep within Hold.
	Hold     time.Duration
	Observer SweepObserver
	Logger   *slog.Logger
}

// Sweeper runs a ChannelSweep every interval on whichever replica claims it first.
type Sweeper struct {
	lease  SweepLease
	name   string
	target ChannelSweep
	opts   SweeperOptions
	holder string
}

// NewSweeper returns a sweeper of target under the lease row name. It returns an error when
// opts.Every is not positive.
func NewSweeper(lease SweepLease, name string, target ChannelSweep, opts SweeperOptions) (*Sweeper, error) {
	if opts.Every <= 0 {
		return nil, fmt.Errorf("sweep %s: interval %s is not positive", name, opts.Every)
	}
	if opts.Hold <= 0 {
		opts.Hold = 2 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Sweeper{lease: lease, name: name, target: target, opts: opts, holder: replicaID()}, nil
}

// replicaID names this process in the lease row: its host and a random suffix.
func replicaID() string {
	host, _ := os.Hostname()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return host + "/" + hex.EncodeToString(b)
}

// checkEvery is how often a replica looks whether the sweep is due: a fifth of the interval,
// so runs are Every to 1.2×Every apart and a failed run is retried a fifth of the way in.
func (s *Sweeper) checkEvery() time.Duration { return max(s.opts.Every/5, time.Second) }

// Run checks whether the sweep is due every Every/5 and runs it when this replica claims it,
// until ctx ends.
func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(s.checkEvery())
	defer t.Stop()
	for {
		if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.opts.Logger.ErrorContext(ctx, "reconciliation sweep", slog.String("sweep", s.name), slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// errLeaseLost stops a run whose claim another replica took over, or could not be renewed.
var errLeaseLost = errors.New("sweep claim lost")

// RunOnce runs the sweep when it is due and this replica claims it; ran reports whether it
// did. The error is the claim's, or the run's: incomplete (some channel failed, or the claim
// was lost). An incomplete run is not recorded as complete, so the lag grows and any replica
// retries it at its next check.
func (s *Sweeper) RunOnce(ctx context.Context) (ran bool, err error) {
	ok, err := s.lease.ClaimSweep(ctx, s.name, s.holder, s.opts.Hold, s.opts.Every, s.checkEvery())
	if err != nil || !ok {
		return false, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		s.keepClaim(runCtx, cancel)
	}()
	started := time.Now()
	res, err := s.target.Sweep(runCtx)
	if cause := context.Cause(runCtx); errors.Is(cause, errLeaseLost) {
		err = errors.Join(err, cause)
	}
	cancel(nil)
	<-renewed
	if err == nil && res.Failed > 0 {
		err = fmt.Errorf("%d of %d channels could not be checked", res.Failed, res.Channels)
	}
	if ferr := s.lease.FinishSweep(context.WithoutCancel(ctx), s.name, s.holder, err == nil); ferr != nil {
		err = errors.Join(err, ferr)
	}
	if s.opts.Observer != nil {
		s.opts.Observer.ObserveSweep(s.name, res, err)
	}
	s.opts.Logger.InfoContext(ctx, "reconciliation sweep ran", slog.String("sweep", s.name), slog.Int("channels", res.Channels),
		slog.Int("failed", res.Failed), slog.Int("closed", res.Closed), slog.Bool("complete", err == nil),
		slog.Duration("took", time.Since(started)))
	if err != nil {
		return true, fmt.Errorf("sweep %s: %w", s.name, err)
	}
	return true, nil
}

// keepClaim renews the claim every Hold/3 until ctx ends; when the claim cannot be renewed it
// cancels the run (another replica may take it over after Hold).
func (s *Sweeper) keepClaim(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(s.opts.Hold / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := s.lease.RenewSweep(ctx, s.name, s.holder, s.opts.Hold)
		if ctx.Err() != nil {
			return
		}
		if err != nil || !ok {
			cancel(errors.Join(errLeaseLost, err))
			return
		}
	}
}

// SweptChannels are what one platform supplies to SweepChannels.
type SweptChannels struct {
	Platform string // "slack", "discord": in log records
	// Check lists who reads a channel now and withdraws what they may not read; its error says
	// they could not be listed or recorded.
	Check func(ctx context.Context, workspace, channel string) error
	// CannotSee reports whether Check's error says the platform no longer lets cita see the
	// channel (removed from it, channel gone): who reads it cannot be known.
	CannotSee func(err error) bool
	// WithdrawAll withdraws every answer shown in a channel that used a document.
	WithdrawAll func(ctx context.Context, workspace, channel string) error
	Logger      *slog.Logger
}

// SweepChannels is one run of a platform's ChannelSweep over channels (AnsweredChannels), each
// checked in turn. When the platform says cita can no longer see a channel, its answers are
// withdrawn, as a failed join check does (Closed; Failed when the withdrawal fails). Any other
// failure (network, rate limit past its retries, the database) is evidence of nothing: it is
// counted Failed and leaves the channel as it is until the retry a few minutes later, since
// withdrawing every answer during an outage would do more harm. It returns ctx's error when
// ctx ends first.
func SweepChannels(ctx context.Context, channels []ConversationKey, s SweptChannels) (SweepResult, error) {
	var res SweepResult
	for _, ch := range channels {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Channels++
		attrs := []any{slog.String("workspace", ch.Workspace), slog.String("channel_id", ch.Channel)}
		switch err := s.Check(ctx, ch.Workspace, ch.Channel); {
		case err == nil:
		case s.CannotSee(err):
			s.Logger.WarnContext(ctx, "sweep: "+s.Platform+" says cita cannot see the channel; withdrawing its answers", append(attrs, slog.Any("error", err))...)
			if err := s.WithdrawAll(ctx, ch.Workspace, ch.Channel); err != nil {
				s.Logger.ErrorContext(ctx, "sweep: withdraw "+s.Platform+" answers", append(attrs, slog.Any("error", err))...)
				res.Failed++
				continue
			}
			res.Closed++
		default:
			s.Logger.ErrorContext(ctx, "sweep: check "+s.Platform+" channel; retried at the next sweep", append(attrs, slog.Any("error", err))...)
			res.Failed++
		}
	}
	return res, nil
}
