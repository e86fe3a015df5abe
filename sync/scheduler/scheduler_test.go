package scheduler_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// slowSource takes a while to list and records how many listings overlap, across schedulers.
type slowSource struct {
	active, maxActive, runs atomic.Int32
}

func (s *slowSource) List(ctx context.Context) ([]indexer.Item, bool, error) {
	n := s.active.Add(1)
	defer s.active.Add(-1)
	for {
		m := s.maxActive.Load()
		if n <= m || s.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	s.runs.Add(1)
	select {
	case <-time.After(1500 * time.Millisecond):
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	content := []byte("# Nota\n\nUna nota breve.\n")
	return []indexer.Item{{ExternalID: "nota.md", Name: "nota.md", Fingerprint: "1", Groups: []string{"everyone"},
		Open: func(context.Context) ([]byte, error) { return content, nil }}}, true, nil
}

// TestTwoSchedulersNeverOverlap runs two schedulers (two replicas, each with its own pool) on
// one database, both firing the same source every second while a pass takes 1.5 s.
func TestTwoSchedulersNeverOverlap(t *testing.T) {
	t.Parallel()
	ix := synctest.New(t)
	replica := ix.Replica(t)
	slow := &slowSource{}
	cfg := config.SourceConfig{Name: "shared", Type: "folder", Schedule: "@every 1s"}
	logger := slog.New(slog.DiscardHandler)
	var scheds []*scheduler.Scheduler
	for _, r := range []*synctest.Index{ix, replica} {
		s := scheduler.New(r.Runner, logger)
		if err := s.Add(cfg, syncrun.Source{Name: "shared", Connector: slow}); err != nil {
			t.Fatal(err)
		}
		s.Start(context.Background())
		scheds = append(scheds, s)
	}
	// Three passes of 1.5 s, fired every second by both: about 5 s on a quiet machine; waited
	// for as an event, since a loaded machine takes longer.
	for deadline := time.Now().Add(time.Minute); slow.runs.Load() < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d passes ran in a minute", slow.runs.Load())
		}
	}
	for _, s := range scheds {
		s.Stop()
	}
	if slow.maxActive.Load() != 1 {
		t.Fatalf("%d passes of one source ran at once", slow.maxActive.Load())
	}
	runs, err := ix.Runner.History().Runs(context.Background(), "shared", 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(runs); i++ { // newest first: each run started after the previous ended
		if !runs[i].FinishedAt.IsZero() && runs[i-1].StartedAt.Before(runs[i].FinishedAt) {
			t.Fatalf("run %d started at %v before run %d finished at %v", runs[i-1].ID, runs[i-1].StartedAt, runs[i].ID, runs[i].FinishedAt)
		}
	}
}

func TestNextRunHonoursTimeZone(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		cfg  config.SourceConfig
		want string
	}{
		{"tz field", config.SourceConfig{Schedule: "0 2 * * *", TimeZone: "America/Bogota"}, "2026-03-11T07:00:00Z"},
		{"CRON_TZ prefix", config.SourceConfig{Schedule: "CRON_TZ=Asia/Tokyo 30 9 * * *"}, "2026-03-11T00:30:00Z"},
		{"every", config.SourceConfig{Schedule: "@every 90m"}, "2026-03-10T13:30:00Z"},
		{"unscheduled", config.SourceConfig{}, "0001-01-01T00:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			next, err := scheduler.NextRun(tc.cfg, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := next.UTC().Format(time.RFC3339); got != tc.want {
				t.Fatalf("next %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := scheduler.NextRun(config.SourceConfig{Schedule: "0 2 * *"}, now); err == nil {
		t.Fatal("a four-field schedule was accepted")
	}
	if _, err := scheduler.NextRun(config.SourceConfig{Schedule: "@daily", TimeZone: "Mars/Olympus"}, now); err == nil {
		t.Fatal("an unknown time zone was accepted")
	}
}
