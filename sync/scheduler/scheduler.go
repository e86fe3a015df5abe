// Package scheduler runs each source's sync pass on its cron schedule (robfig/cron/v3, with a
// time zone per source). A source never overlaps itself within a process (SkipIfStillRunning),
// and the runner's PostgreSQL advisory lock keeps replicas from syncing it at the same time.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/syncrun"
)

// Runner runs one pass of a source (syncrun.Runner).
type Runner interface {
	Run(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error)
}

// Scheduler triggers sync passes. Construct it with New, Add sources, then Start and Stop.
type Scheduler struct {
	runner  Runner
	logger  *slog.Logger
	cron    *cron.Cron
	mu      sync.Mutex
	entries map[string]entry
	lanes   map[string]*lane
	wg      sync.WaitGroup // the lanes' loops
	started bool
	ctx     context.Context
	cancel  context.CancelFunc
}

type entry struct {
	id       cron.EntryID
	schedule cron.Schedule
}

// New returns a scheduler that runs passes with runner.
func New(runner Runner, logger *slog.Logger) *Scheduler {
	ctx, cancel := context.WithCancel(context.Background())
	cl := cronLogger{logger}
	return &Scheduler{
		runner:  runner,
		logger:  logger,
		cron:    cron.New(cron.WithChain(cron.Recover(cl), cron.SkipIfStillRunning(cl)), cron.WithLogger(cl)),
		entries: map[string]entry{},
		lanes:   map[string]*lane{},
		ctx:     ctx,
		cancel:  cancel,
	}
}

// Add schedules src on cfg's schedule (cfg.Name must equal src.Name). A source without a
// schedule is accepted and never triggered. It returns an error for an invalid schedule or a
// source added twice.
func (s *Scheduler) Add(cfg config.SourceConfig, src syncrun.Source) error {
	sched, err := cfg.ParseSchedule()
	if err != nil {
		return fmt.Errorf("source %s: %w", cfg.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.entries[src.Name]; dup {
		return fmt.Errorf("source %s is scheduled twice", src.Name)
	}
	l := newLane(src)
	s.lanes[src.Name] = l
	if s.started {
		s.startLane(l)
	}
	if sched == nil {
		s.entries[src.Name] = entry{}
		return nil
	}
	id := s.cron.Schedule(sched, cron.FuncJob(func() { s.runOnce(l, syncrun.RunOptions{}) }))
	s.entries[src.Name] = entry{id: id, schedule: sched}
	return nil
}

// runOnce runs one pass of the lane's source, never two at once in this process (the runner's
// advisory lock keeps other replicas out). It returns the pass's error.
func (s *Scheduler) runOnce(l *lane, ro syncrun.RunOptions) error {
	l.running.Lock()
	defer l.running.Unlock()
	src := l.src
	res, err := s.runner.Run(s.ctx, src, ro)
	switch {
	case errors.Is(err, syncrun.ErrBusy):
		s.logger.InfoContext(s.ctx, "sync skipped: another replica is syncing this source", slog.String("source", src.Name))
	case errors.Is(err, context.Canceled) && s.ctx.Err() != nil:
		s.logger.InfoContext(s.ctx, "sync interrupted by shutdown; the next run finishes it", slog.String("source", src.Name))
	case errors.Is(err, syncrun.ErrMassDelete):
		// The runner logged the held-back deletion at error level; this line keeps the run id.
		s.logger.WarnContext(s.ctx, "sync applied its changes but held back its deletions", slog.String("source", src.Name),
			slog.Int64("run_id", res.Run.ID), slog.String("error", err.Error()))
	case err != nil:
		s.logger.ErrorContext(s.ctx, "sync failed", slog.String("source", src.Name), slog.Int64("run_id", res.Run.ID), slog.String("error", err.Error()))
	}
	return err
}

// Start begins triggering passes; ctx's end stops the scheduler as Stop does.
func (s *Scheduler) Start(ctx context.Context) {
	s.mu.Lock()
	s.started = true
	for _, l := range s.lanes {
		s.startLane(l)
	}
	s.mu.Unlock()
	s.cron.Start()
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.ctx.Done():
		}
	}()
}

// Stop stops triggering, cancels the passes in progress (each records its run as interrupted;
// the next pass finishes the job) and waits for them to return.
func (s *Scheduler) Stop() {
	s.cancel()
	<-s.cron.Stop().Done()
	s.wg.Wait()
}

// SourceTimes is a scheduled source and its next trigger (zero when it has no schedule).
type SourceTimes struct {
	Source string
	Next   time.Time
}

// Next returns every added source with its next trigger after now, sorted by source name.
func (s *Scheduler) Next(now time.Time) []SourceTimes {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SourceTimes, 0, len(s.entries))
	for name, e := range s.entries {
		st := SourceTimes{Source: name}
		if e.schedule != nil {
			st.Next = e.schedule.Next(now)
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}

// NextRun returns when cfg's schedule next triggers after now; zero when it has no schedule.
// It returns an error for an invalid schedule.
func NextRun(cfg config.SourceConfig, now time.Time) (time.Time, error) {
	sched, err := cfg.ParseSchedule()
	if err != nil || sched == nil {
		return time.Time{}, err
	}
	return sched.Next(now), nil
}

// cronLogger adapts slog to cron.Logger.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, slog.String("error", err.Error()))...)
}
