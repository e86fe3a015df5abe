package leakcheck

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
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
		lvl := slog.LevelWarn // LEAKCHECK_LOG=info logs every answer too
		if os.Getenv("LEAKCHECK_LOG") == "info" {
			lvl = slog.LevelInfo
		}
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
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

// answerPaths are the paths whose reply is a composed answer (the answer cache serves them).
var answerPaths = []string{pathSlackMention, pathSlackFollowUp, pathSlackDM, pathSlackSlash, pathDiscordAsk, pathDiscordPrivate,
	pathDiscordDM, pathCLI, pathMCPAsk}

// TestCatchesLeaks breaks cita on purpose, one check at a time, with the in-flight faults off so
// that only the break can leak: the harness must report a leak on the break's own path.
func TestCatchesLeaks(t *testing.T) {
	cases := []struct {
		name  string
		f     faults
		want  func(l Leak) bool // a leak this break must cause
		never []string          // paths whose check stays whole: no leak expected there
		gap   string            // why the harness cannot see this break yet (to close)
		// inFlight keeps the in-flight joins and injected faults on: the break only shows when a
		// join lands while a reply is written.
		inFlight bool
		// questions, when set, replaces the 200 questions of a case.
		questions int
		// afterRounds: the break's path runs once the rounds are over (the gap record's), so
		// the rounds do not go on until it is caught.
		afterRounds bool
	}{
		{name: "search filter", f: faults{searchIgnoresScope: true},
			want: func(l Leak) bool { return l.Try() == pathMCPSearch }},
		{name: "cache key", f: faults{cacheIgnoresScope: true},
			want:  func(l Leak) bool { return slices.Contains(answerPaths, l.Try()) },
			never: []string{pathMCPSearch, pathMCPDocument}},
		// Memory shows only in a return after a lost group (pathSlackLostGroup) whose follow-up
		// draws on the lost answer: 200 questions showed one such leak, 400 give a margin.
		{name: "conversation memory", f: faults{memoryIgnoresScope: true}, questions: 400,
			want:  func(l Leak) bool { return l.Try() == pathSlackFollowUp },
			never: []string{pathMCPSearch, pathMCPDocument}},
		{name: "how I answered", f: faults{traceIgnoresScope: true},
			want:  func(l Leak) bool { return l.Try() == pathSlackExplain || l.Try() == pathDiscordExplain },
			never: []string{pathMCPSearch, pathMCPDocument}},
		// Every dropped record makes someone join while the reply is written, and each leak
		// holds its settle to the deadline: a few rounds show it (200 questions took ~95 s).
		{name: "record before showing", f: faults{recordDropped: true}, questions: 64,
			want:  func(l Leak) bool { return strings.HasPrefix(l.Path, "withdrawal after a join (slack") },
			never: []string{pathMCPSearch, pathMCPDocument}},
		{name: "write after withdrawal", f: faults{skipWriteCheck: true, inFlightOneIn: 2}, inFlight: true,
			want: func(l Leak) bool { return strings.HasSuffix(l.Path, "(after its withdrawal)") }},
		{name: "sweep", f: faults{noSweep: true, dropJoins: true},
			want: func(l Leak) bool { return strings.HasPrefix(l.Path, "withdrawal after a lost join") }},
		{name: "get_document scope", f: faults{documentsIgnoreScope: true},
			want: func(l Leak) bool { return l.Try() == pathMCPDocument || strings.HasPrefix(l.Path, "agent step") }},
		{name: "default groups", f: faults{defaultAllGroups: true},
			want: func(l Leak) bool { return strings.HasPrefix(l.Try(), "slack") }},
		// Third edition (issue 29): each arrival path with the check that covers it broken.
		{name: "joiners the member list trails", f: faults{trailingLists: true, joinersIgnored: true},
			want: func(l Leak) bool {
				return strings.HasPrefix(l.Path, arrivalTrailing) || strings.Contains(l.Path, whileTrailing)
			}},
		{name: "writes after a join was recorded", f: faults{preparedJoins: true, writeIgnoresReaders: true}, questions: 100,
			want: func(l Leak) bool { return strings.Contains(l.Path, afterRecorded) }},
		// Every document changes at every churn; a notice naming one in a thread whose answer
		// was withdrawn (a join, a lost group) names it to someone who may not read it.
		{name: "source-change notices", f: faults{noticesNameAll: true}, questions: 100,
			want:  func(l Leak) bool { return l.Try() == pathSlackNotice || l.Try() == pathDiscordNotice },
			never: []string{pathMCPSearch, pathMCPDocument}},
		// Each leak holds its settle for eventWithdrawWithin: a few rounds show it.
		{name: "workspace joins", f: faults{workspaceJoins: true, teamJoinIgnored: true}, questions: 100,
			want: func(l Leak) bool { return strings.HasPrefix(l.Path, arrivalTeam) }},
		// The gap record (issue 32): a private question shared by someone other than its asker,
		// and a digest naming documents its channel's readers may not read.
		{name: "gap shares", f: faults{shareByAnyone: true}, questions: 40, afterRounds: true,
			want:  func(l Leak) bool { return l.Path == pathGapReport && l.Kind == "private question" },
			never: []string{pathGapDigest}},
		{name: "gap digest readers", f: faults{digestIgnoresReaders: true}, questions: 40, afterRounds: true,
			want:  func(l Leak) bool { return l.Try() == pathGapDigest },
			never: []string{pathGapReport}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gap != "" {
				t.Skip(tc.gap)
			}
			cs, schema := testdb.Schema(t)
			questions := cmp.Or(tc.questions, 200)
			// caught: a run whose timing made none of the events the break's path needs goes on
			// (up to untilCaught times its questions) rather than passing for a miss.
			rep, err := Run(context.Background(), Config{ConnString: cs, Schema: schema, Questions: questions, Seed: 3, Timeout: 8 * time.Second,
				NoFaults: !tc.inFlight, faults: tc.f, caught: caughtDuringRounds(tc.want, tc.afterRounds)})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			rep.Write(&b)
			n := 0
			for _, l := range rep.Leaks {
				if tc.want(l) {
					n++
				}
			}
			if n == 0 {
				t.Fatalf("no leak on the break's path in %d questions (%d asked for, then on until caught):\n%s", rep.Questions, questions, b.String())
			}
			by := rep.LeaksBy()
			for _, p := range tc.never {
				if by[p] > 0 {
					t.Errorf("%d leaks on %s, whose check this break leaves whole:\n%s", by[p], p, b.String())
				}
			}
			t.Logf("%d leaks on the break's path; by path %v", n, by)
			if os.Getenv("LEAKCHECK_SHOW") != "" {
				t.Log(b.String())
			}
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
			cfg := Config{ConnString: cs, Schema: schema, Questions: 200, Seed: 3, Timeout: 30 * time.Second, faults: faults{failJoinLookups: n}}
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

// caughtDuringRounds is Config.caught for a break: none when its path runs after the rounds.
func caughtDuringRounds(want func(Leak) bool, afterRounds bool) func(Leak) bool {
	if afterRounds {
		return nil
	}
	return want
}
