package leakcheck

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
)

// TestNoLeaks runs the harness on a fresh schema: about two thousand randomized questions with
// membership churn and two replicas must leak nothing.
func TestNoLeaks(t *testing.T) {
	cs, schema := testdb.Schema(t)
	n := 2000
	if testing.Short() {
		n = 300
	}
	cfg := Config{ConnString: cs, Schema: schema, Questions: n, Seed: 12}
	if os.Getenv("LEAKCHECK_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Write(&b)
	t.Log(b.String())
	if len(rep.Leaks) > 0 {
		t.Fatalf("%d leaks:\n%s", len(rep.Leaks), b.String())
	}
	if rep.Questions < n {
		t.Fatalf("asked %d questions, want %d", rep.Questions, n)
	}
	if why := rep.Unproven(); len(why) > 0 {
		t.Fatalf("the run proves nothing:\n  %s\n%s", strings.Join(why, "\n  "), b.String())
	}
}

// TestCatchesLeaks breaks cita on purpose: the harness must report leaks.
func TestCatchesLeaks(t *testing.T) {
	for name, f := range map[string]faults{
		"every member holds every group": {defaultAllGroups: true},
		"join events are lost":           {dropJoins: true},
		"documents ignore the scope":     {documentsIgnoreScope: true},
	} {
		t.Run(name, func(t *testing.T) {
			cs, schema := testdb.Schema(t)
			rep, err := Run(context.Background(), Config{ConnString: cs, Schema: schema, Questions: 150, Seed: 3, Timeout: 8 * time.Second, faults: f})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Leaks) == 0 {
				var b strings.Builder
				rep.Write(&b)
				t.Fatalf("no leak found:\n%s", b.String())
			}
			paths := map[string]int{}
			for _, l := range rep.Leaks {
				paths[l.Path]++
			}
			t.Logf("%d leaks by path %v; first: %s", len(rep.Leaks), paths, rep.Leaks[0])
		})
	}
}

// TestJoinCheckSurvivesLookupFailures: when Slack fails to list a channel's members right after
// someone joins, the answers there that the newcomer may not read must still be withdrawn (the
// check retries, and withdraws them all when it cannot tell). Before the fix they stayed until
// the next question in the channel.
func TestJoinCheckSurvivesLookupFailures(t *testing.T) {
	for _, n := range []int{1, 100} {
		t.Run(fmt.Sprintf("%d failures", n), func(t *testing.T) {
			cs, schema := testdb.Schema(t)
			cfg := Config{ConnString: cs, Schema: schema, Questions: 300, Seed: 3, Timeout: 30 * time.Second, faults: faults{failJoinLookups: n}}
			if os.Getenv("LEAKCHECK_LOG") != "" {
				cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Leaks) > 0 {
				var b strings.Builder
				rep.Write(&b)
				t.Fatalf("%d leaks:\n%s", len(rep.Leaks), b.String())
			}
		})
	}
}
