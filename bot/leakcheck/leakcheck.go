// Package leakcheck is cita's leak harness: it builds a random organisation (people, groups,
// public and private Slack channels, a Discord guild with roles and restricted channels),
// indexes documents that each carry a unique canary phrase, title code and path code, runs two
// replicas on one database, and asks thousands of questions built from the canaries through
// every way cita answers: Slack mentions, thread follow-ups, direct messages, /cita and "How I
// answered" clicks (loopback Slack Web API and Events API), Discord /ask in channels, privately
// and in DMs and its buttons (loopback REST API and signed interactions), the CLI ask path, and
// the MCP tools search, get_document and ask, with agent steps driven by a fake
// OpenAI-compatible model that calls tools. Between rounds people join and leave channels and
// gain and lose groups, each event reaching one replica only. It fails when any code reaches
// anyone who may not read its document, in any reply, edit, ephemeral message, "How I answered"
// view, cache hit, follow-up, tool result or error, or when an answer stays in a conversation a
// newcomer may not read it in.
package leakcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
)

// Config is one run of the harness.
type Config struct {
	// ConnString and Schema name the database and the schema the harness works in; the schema
	// is created and migrated if missing. The caller drops it afterwards.
	ConnString, Schema string
	// Questions is how many questions to ask (clicks on "How I answered" are counted apart);
	// default 2,000.
	Questions int
	// Seed makes the organisation, the corpus and the questions repeatable.
	Seed uint64
	// Concurrency is how many conversations ask at once; default 16. A round waits for its
	// slowest reply (a 429's Retry-After, a slow write), so the rate grows with it: 8 gave about
	// 13 questions/s on a 2-core machine, 16 about 25-35.
	Concurrency int
	// ChurnEvery is how many rounds pass between membership changes; default 1 (with 16
	// conversations a round, about as many changes per question as 8 and every 2 rounds gave).
	ChurnEvery int
	// Timeout bounds the wait for one reply; default 60 s.
	Timeout time.Duration
	// CLIPrint prints an answer as `cita ask --explain` does (cmd/cita passes its own printer);
	// nil prints the text, the sources with their paths and the passages searched.
	CLIPrint func(w io.Writer, ans *rag.Answer)
	// NoFaults runs without in-flight churn and injected faults: no join while a reply is
	// written, no throttled, slow or refused chat write, no database fault, no lost event (the
	// harness's first edition). Lookups still fail now and then.
	NoFaults bool
	// Progress, when set, receives a line per thousand questions.
	Progress io.Writer
	Logger   *slog.Logger

	faults faults // the harness's own tests break cita on purpose, to see the harness fail
	// caught, when set, is what a break's run must show (TestCatchesLeaks): after Questions,
	// the run goes on, round by round, until a leak satisfies it or it asked untilCaught times
	// Questions. A break's path may need events that timing decides (a join landing while a
	// reply is written): a run that happened to make none must not pass for one that missed the
	// break.
	caught func(Leak) bool
}

// untilCaught bounds a break's run (Config.caught): it asks at most this many times its
// Questions.
const untilCaught = 4

// faults are deliberate breakages that the harness must catch.
type faults struct {
	// defaultAllGroups gives every full Slack member every group: channel answers then use
	// documents some readers may not read.
	defaultAllGroups bool
	// dropJoins loses every member_joined_channel event: earlier answers stay in front of
	// newcomers who may not read them.
	dropJoins bool
	// failJoinLookups makes the first n conversations.members calls after each join fail, as a
	// Slack outage would: the join's check must still withdraw what the newcomer may not read.
	failJoinLookups int
	// documentsIgnoreScope lets get_document (MCP and agent steps) read any document.
	documentsIgnoreScope bool
	// noSweep skips the reconciliation sweep (sweep.go): lost joins stay.
	noSweep bool
	// searchIgnoresScope searches every arm with every group (breaks.go).
	searchIgnoresScope bool
	// cacheIgnoresScope keys cached answers without their scope.
	cacheIgnoresScope bool
	// memoryIgnoresScope reads conversation memory with every group.
	memoryIgnoresScope bool
	// traceIgnoresScope loads "How I answered" as a viewer holding every group.
	traceIgnoresScope bool
	// recordDropped drops an answer's record in a Slack channel while reporting success: the
	// answer is shown, and nothing can withdraw it when someone joins.
	recordDropped bool
	// skipWriteCheck writes an answer's text even when it was withdrawn meanwhile.
	skipWriteCheck bool
	// inFlightOneIn, when > 0, replaces inFlightOneIn: how rarely a final write in a channel
	// meets a join (the write-check break shows only on a throttled write retried after the
	// notice, so its case makes them common).
	inFlightOneIn int
	// trailingLists makes every delivered join's member list trail it (arrivals.go);
	// joinersIgnored breaks cita's count of joiners the list does not show (AddReader and
	// ChannelJoiners do nothing).
	trailingLists, joinersIgnored bool
	// preparedJoins makes someone join every Slack channel answer's channel while it is being
	// prepared, the member list failing; writeIgnoresReaders breaks the check of each write
	// against the channel's recorded readers (only a withdrawal stops it).
	preparedJoins, writeIgnoresReaders bool
	// workspaceJoins adds a new member to the workspace at every churn; teamJoinIgnored
	// breaks cita's handling of team_join (no public channel is checked).
	workspaceJoins, teamJoinIgnored bool
	// noticesNameAll changes every document at every churn and names every changed document in
	// every source-change notice, even where cita decided not to (notices.go).
	noticesNameAll bool
	// shareByAnyone lets anyone's "Tell the document owners" share someone else's question;
	// digestIgnoresReaders builds a channel's gap digest naming every document (gaps.go).
	shareByAnyone, digestIgnoresReaders bool
}

// CLIFunc answers question for an asker holding groups, as `cita ask --groups` does, and returns
// all it prints.
type CLIFunc func(ctx context.Context, groups []string, question string) (string, error)

// Report is what a run tried and found.
type Report struct {
	Questions int // questions asked, over every path
	// Clicks counts "How I answered" views and document reads that were not questions, and the
	// returns after a lost group (which ask outside the planned questions).
	Clicks  int
	Paths   map[string]int // tries per path
	Changes int            // membership changes
	Checked int            // texts the oracle checked
	Shown   int            // codes shown to readers allowed to read them (the check has material)
	ShownBy map[string]int // the same, per path of the message
	// Allowed counts, per path, the tries that showed someone a code everyone who saw it may
	// read: proof that the path's answers reach people (a run of refusals shows none).
	Allowed map[string]int
	// Unanswered counts the questions and clicks whose reply did not come in time: cita is never
	// silent, so the tests fail on any.
	Unanswered   int
	UnansweredBy map[string]int
	// InFlightJoins are joins made while a reply was being written; LostEvents the join events
	// lost; DBFaults the database calls made to fail; Sweeps the reconciliation sweeps run (0
	// when cita has none: see sweep.go).
	InFlightJoins, LostEvents, DBFaults, Sweeps int
	// TrailingJoins are joins Slack's member list showed only trailFor after their event;
	// PreparedJoins joins recorded while an answer in their channel was being prepared, the
	// channel's member list failing; WorkspaceJoins new members of the workspace (team_join).
	TrailingJoins, PreparedJoins, WorkspaceJoins int
	// SourceChanges are the document revisions a sync pass made (notices.go); Notices the
	// source-change notices cita posted for them.
	SourceChanges, Notices int
	// Explained counts what the Slack "How I answered" clicks got: views (of a cited answer,
	// an abstention, a reason) and refusals (withdrawn, not the clicker's to see).
	Explained map[string]int
	Leaks     []Leak
	Took      time.Duration
	// Where the time went: answering rounds, settling (waiting for owed withdrawals) and sweeps.
	InRounds, InSettles, InSweeps time.Duration
}

// LeaksBy returns the number of leaks per path of the try they belong to (Leak.Try).
func (r *Report) LeaksBy() map[string]int {
	out := map[string]int{}
	for _, l := range r.Leaks {
		out[l.Try()]++
	}
	return out
}

// Write prints the report: a summary line, then per path the tries, the tries that showed an
// allowed code, the replies that did not come and the leaks, then the first leaks.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "leak harness: %d questions and %d clicks/reads over %d paths, %d membership changes, %d texts checked holding %d allowed codes, in %s (%.0f questions/s)\n",
		r.Questions, r.Clicks, len(r.Paths), r.Changes, r.Checked, r.Shown, r.Took.Round(time.Millisecond), float64(r.Questions)/max(r.Took.Seconds(), 1e-9))
	leaks := r.LeaksBy()
	paths := slices.Collect(maps.Keys(r.Paths))
	for p := range leaks {
		if !slices.Contains(paths, p) {
			paths = append(paths, p) // a leak outside the tries: a withdrawal, a lost event
		}
	}
	slices.Sort(paths)
	fmt.Fprintf(w, "  %-28s %6s %8s %8s %6s\n", "path", "tries", "allowed", "silent", "leaks")
	for _, p := range paths {
		fmt.Fprintf(w, "  %-28s %6d %8d %8d %6d\n", p, r.Paths[p], r.Allowed[p], r.UnansweredBy[p], leaks[p])
	}
	if r.Unanswered > 0 {
		fmt.Fprintf(w, "replies that did not come in time: %d\n", r.Unanswered)
	}
	if len(r.Explained) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(r.Explained)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Explained[k]))
		}
		fmt.Fprintf(w, "what slack's how I answered clicks got: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(w, "in flight: %d joins while a reply was written, %d join events lost, %d database faults, %d sweeps\n",
		r.InFlightJoins, r.LostEvents, r.DBFaults, r.Sweeps)
	fmt.Fprintf(w, "arrivals: %d joins the member list trailed, %d joins while an answer was prepared (the member list failing), %d new workspace members\n",
		r.TrailingJoins, r.PreparedJoins, r.WorkspaceJoins)
	fmt.Fprintf(w, "source changes: %d document revisions, %d notices posted, naming %d codes to readers who may read them (slack %d, discord %d)\n",
		r.SourceChanges, r.Notices, r.ShownBy[pathSlackNotice]+r.ShownBy[pathDiscordNotice], r.ShownBy[pathSlackNotice], r.ShownBy[pathDiscordNotice])
	if r.Sweeps == 0 && r.LostEvents > 0 {
		fmt.Fprintln(w, "no reconciliation sweep ran: a lost join stays until its channel's next question")
	}
	fmt.Fprintf(w, "time: %s answering rounds, %s settling, %s sweeping\n", r.InRounds.Round(time.Millisecond),
		r.InSettles.Round(time.Millisecond), r.InSweeps.Round(time.Millisecond))
	fmt.Fprintf(w, "leaks: %d\n", len(r.Leaks))
	for i, l := range r.Leaks {
		if i == 20 {
			fmt.Fprintf(w, "  … and %d more\n", len(r.Leaks)-20)
			break
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// run is the state of one harness run.
type run struct {
	cfg     Config
	rng     *rand.Rand
	dice    *dice // decisions taken while answers are in flight
	org     *org
	corpus  *corpus
	oracle  *oracle
	reps    []*replica
	slack   *slackSide
	discord *discordSide
	mcp     *mcpSide
	// sourceRuns numbers the sync passes that change documents (notices.go).
	sourceRuns atomic.Int64
	// cli1 answers as `cita ask` with the first replica's pipeline.
	cli1 CLIFunc
	// agentCLI answers in agent mode with the prying model (the second replica's pipeline).
	agentCLI CLIFunc

	mu     sync.Mutex
	report *Report
}

// Run runs the harness and returns its report; the report's Leaks say whether it passed. It
// returns an error when the harness itself cannot run (database, fakes, adapters).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Questions <= 0 {
		cfg.Questions = 2000
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.ChurnEvery <= 0 {
		cfg.ChurnEvery = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	o := newOrg(rng, orgSize{groups: 6, people: 40, slackChannels: 12, discordChannels: 6})
	o.guestJoins = cfg.faults.failJoinLookups > 0 || cfg.faults.dropJoins || cfg.faults.trailingLists
	c := newCorpus(rng, o)
	r := &run{cfg: cfg, rng: rng, dice: newDice(cfg.Seed), org: o, corpus: c, oracle: newOracle(o, c), report: &Report{Paths: map[string]int{},
		Allowed: map[string]int{}, UnansweredBy: map[string]int{}}}
	emb := hashembed.New(0)
	for range 2 {
		rates := defaultDBFaults
		if cfg.NoFaults {
			rates = dbFaults{}
		}
		rep, err := openReplica(ctx, cfg.ConnString, cfg.Schema, emb, r.dice, rates, cfg.faults, o.wideScope(), cfg.Logger)
		if err != nil {
			r.closeReplicas()
			return nil, fmt.Errorf("leakcheck: open replica: %w", err)
		}
		r.reps = append(r.reps, rep)
	}
	defer r.closeReplicas()
	if err := c.index(ctx, r.reps[0].index, emb); err != nil {
		return nil, fmt.Errorf("leakcheck: %w", err)
	}
	if r.cfg.CLIPrint == nil {
		r.cfg.CLIPrint = printAnswer
	}
	r.cli1 = pipelineCLI(r.reps[0].pipeline, r.cfg.CLIPrint)
	var err error
	r.slack, err = newSlackSide(ctx, o, r.oracle, r.dice, r.reps, cfg.Timeout, cfg.faults, cfg.NoFaults, cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("leakcheck: slack: %w", err)
	}
	r.discord, err = newDiscordSide(o, r.oracle, r.dice, r.reps, cfg.Timeout, cfg.Logger)
	if err != nil {
		r.slack.close(ctx)
		return nil, fmt.Errorf("leakcheck: discord: %w", err)
	}
	r.mcp, r.agentCLI, err = newMCPSide(ctx, o, r.oracle, c, r.reps, cfg.faults, r.cfg.CLIPrint, cfg.Logger)
	if err != nil {
		r.slack.close(ctx)
		r.discord.close(ctx)
		return nil, fmt.Errorf("leakcheck: mcp: %w", err)
	}
	runErr := r.loop(ctx)
	if ran, err := r.sweep(ctx, 0); err != nil && runErr == nil {
		runErr = err
	} else if ran {
		r.report.Sweeps++
	}
	if runErr == nil {
		runErr = r.gapPhase(ctx)
	}
	r.slack.close(ctx)
	r.discord.close(ctx)
	r.mcp.close()
	r.settle(ctx) // what the last answers left in conversations, once everything finished
	r.report.Leaks, r.report.Checked, r.report.Shown, r.report.ShownBy = r.oracle.result()
	r.report.InFlightJoins, r.report.LostEvents = int(r.slack.inFlightJoins.Load()), int(r.slack.lostJoins.Load())
	r.report.TrailingJoins, r.report.PreparedJoins = int(r.slack.trailingJoins.Load()), int(r.slack.preparedJoins.Load())
	r.report.WorkspaceJoins = int(r.slack.workspaceJoins.Load())
	r.report.Changes += r.report.PreparedJoins + r.report.WorkspaceJoins
	r.slack.mu.Lock()
	r.report.Explained = maps.Clone(r.slack.explained)
	r.slack.mu.Unlock()
	r.report.Changes += r.report.InFlightJoins
	for _, rep := range r.reps {
		r.report.DBFaults += int(rep.faulty.injected.Load())
	}
	r.report.Took = time.Since(start)
	return r.report, runErr
}

func (r *run) closeReplicas() {
	for _, rep := range r.reps {
		rep.close()
	}
}

// loop asks rounds of questions until cfg.Questions were asked, changing memberships between
// rounds.
func (r *run) loop(ctx context.Context) error {
	nextProgress := 1000
	for round := 1; r.more(); round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		left := r.cfg.Questions - r.report.Questions
		if left <= 0 {
			left = r.cfg.Concurrency // a break's run going on until it is caught
		}
		acts := r.plan(min(r.cfg.Concurrency, left))
		began := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, len(acts))
		for i, a := range acts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.do(ctx, a)
			}()
		}
		wg.Wait()
		r.report.InRounds += time.Since(began)
		if err := errors.Join(errs...); err != nil {
			return err
		}
		if round%r.cfg.ChurnEvery == 0 {
			r.settle(ctx) // before the visitors of this round leave: what they were owed is due now
			changes := r.org.churn(r.rng, 1+r.rng.IntN(3))
			r.report.Changes += len(changes)
			roles, err := r.slackRolesVersion(ctx)
			if err != nil {
				return err
			}
			if err := r.slack.announce(ctx, r.rng, changes); err != nil {
				return err
			}
			if err := r.workspaceJoin(ctx); err != nil {
				return err
			}
			if err := r.discord.announce(ctx, r.reps[r.rng.IntN(len(r.reps))].store, changes); err != nil {
				return err
			}
			if err := r.returnAfterLoss(ctx, roles+roleChanges(changes)); err != nil {
				return err
			}
			if r.rng.IntN(3) == 0 {
				if err := r.mcp.revoke(ctx, r.rng); err != nil {
					return err
				}
				r.report.Changes++
			}
			// A sync pass changes documents once cita heard of this round's group changes
			// (returnAfterLoss waits for them): a notice is never withdrawn, so it is checked
			// against everyone who reads its conversation when it is posted.
			if err := r.sourceChange(ctx); err != nil {
				return err
			}
			r.settleEvents(ctx) // before the sweep, which must not stand in for the events
			ran, err := r.sweep(ctx, round)
			if err != nil {
				return err
			}
			if ran {
				r.report.Sweeps++
			}
			r.settle(ctx)
		}
		if r.cfg.Progress != nil && r.report.Questions >= nextProgress {
			fmt.Fprintf(r.cfg.Progress, "leak harness: %d questions, %d leaks so far\n", r.report.Questions, len(r.oracle.leaksSoFar()))
			nextProgress += 1000
		}
	}
	return nil
}

// more reports whether the loop asks another round: until cfg.Questions were asked and, in a
// break's run, until the break was caught or the run asked untilCaught times as many.
func (r *run) more() bool {
	if r.report.Questions < r.cfg.Questions {
		return true
	}
	if r.cfg.caught == nil || r.report.Questions >= untilCaught*r.cfg.Questions {
		return false
	}
	return !slices.ContainsFunc(r.oracle.leaksSoFar(), r.cfg.caught)
}

// settleWait bounds how long a withdrawal may take once the change that calls for it happened
// (a join check that cannot list the channel retries for about 4 s before it withdraws all).
const settleWait = 8 * time.Second

// resweepAfter is how long settle waits on an owed withdrawal before it runs another sweep, at
// most resweeps times: a withdrawal that failed (an injected database fault on redaction, a
// lookup failure during the sweep) is retried by cita at the channel's next check, which in a
// quiet channel is the next sweep. The extra sweeps stand for the sweep intervals that pass in
// production; a withdrawal that none of them makes is a leak.
const (
	resweepAfter = 500 * time.Millisecond
	resweeps     = 3
)

// settle waits until every answer still shown in a conversation may be read by everyone who
// can read it there now (the adapters withdraw the others); what is still readable by someone
// who may not read it after the wait is a leak.
func (r *run) settle(ctx context.Context) {
	defer func(began time.Time) { r.report.InSettles += time.Since(began) }(time.Now())
	r.settleEvents(ctx)
	deadline := time.Now().Add(min(r.cfg.Timeout/4, settleWait))
	resweep, swept := time.Now().Add(resweepAfter), 0
	for {
		pending := r.oracle.pending()
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.oracle.fail(pending)
			return
		}
		if swept < resweeps && time.Now().After(resweep) {
			// An error here is the sweep's own (listing the answered channels): the next
			// sweep, or the deadline, decides.
			if ran, _ := r.sweep(ctx, r.report.Sweeps); ran {
				r.report.Sweeps++
			}
			swept++
			resweep = time.Now().Add(resweepAfter)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settleEvents waits for what events owe: withdrawals cita must make on an event it was sent
// (a join, a team_join), without a sweep, within eventWithdrawWithin; those still owed after it
// are leaks. It runs before any sweep: a sweep must not stand in for the event's handling.
func (r *run) settleEvents(ctx context.Context) {
	for {
		late, _, wait := overdue(r.oracle.pending(), time.Now())
		r.oracle.fail(late)
		if wait == 0 || ctx.Err() != nil {
			return
		}
		time.Sleep(min(wait, 20*time.Millisecond))
	}
}

// count records one try of path; question says whether it was a question, answered whether its
// reply came in time, allowed whether it showed a code every reader may read.
func (r *run) count(path string, question, answered, allowed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report.Paths[path]++
	if allowed {
		r.report.Allowed[path]++
	}
	if question {
		r.report.Questions++
	} else {
		r.report.Clicks++
	}
	if !answered {
		r.report.Unanswered++
		r.report.UnansweredBy[path]++
	}
}

func (or *oracle) leaksSoFar() []Leak {
	or.mu.Lock()
	defer or.mu.Unlock()
	return slices.Clone(or.leaks)
}

// describeGroups is a person's groups for messages.
func describeGroups(groups []string) string { return strings.Join(groups, ",") }
