package leakcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/bot/slack/slackload"
)

// slackSide is two Slack adapters (one per replica, Events API over HTTP) in front of one fake
// workspace. Each event goes to one replica, as Slack delivers it.
type slackSide struct {
	endpoints[*slackbot.Adapter]
	fake   *fakeSlack
	org    *org
	oracle *oracle
	secret string
	seq    atomic.Int64
	faults faults
	logger *slog.Logger

	dice     *dice
	noFaults bool // no in-flight joins, write faults or lost events
	// inFlightJoins and lostJoins count the joins made while a reply was written, and the join
	// events lost; trailingJoins the joins Slack's member list showed only trailFor later;
	// preparedJoins the joins recorded while an answer was being prepared, with the channel's
	// member list failing; workspaceJoins the new members of the workspace.
	inFlightJoins, lostJoins, trailingJoins, preparedJoins, workspaceJoins atomic.Int64

	mu        sync.Mutex
	threads   map[string][]slackThread // channel -> answered threads
	dmAnswers []dmAnswer               // recent direct-message answers (revokeAnswered)
	lost      []dmAnswer               // of those, the ones whose asker lost its group since
	questions map[string][]string      // "channel/thread" -> the questions asked in the thread ("D…/": a DM's)
	forceJoin map[string]bool          // channels whose next reply is written while someone joins
	faulted   map[string]bool          // "channel/ts" of writes already faulted once
	explained map[string]int           // "How I answered" outcomes (explainOutcome), for the report
	waits     recordWaits              // answers waiting for cita to record a join (slackarrivals.go)
}

// slackThread is an answer in a channel thread: where follow-ups and clicks go.
type slackThread struct {
	thread, ts string
	answerID   int64
	question   string // the mention that started it, which its "How I answered" view shows
}

func newSlackSide(ctx context.Context, o *org, or *oracle, d *dice, replicas []*replica, timeout time.Duration, f faults, noFaults bool, logger *slog.Logger) (*slackSide, error) {
	s := &slackSide{endpoints: newEndpoints[*slackbot.Adapter](timeout), fake: newFakeSlack(o, or, d), org: o, oracle: or,
		secret: "leakcheck-signing-secret", faults: f, threads: map[string][]slackThread{}, questions: map[string][]string{},
		dice: d, noFaults: noFaults, forceJoin: map[string]bool{}, faulted: map[string]bool{}, explained: map[string]int{}, logger: logger}
	s.fake.duringWrite = s.duringWrite
	for _, r := range replicas {
		r.faulty.recordFailed = s.recordFailed
		r.faulty.preparing = s.preparing
		r.faulty.readerAdded = s.readerAdded
		r.faulty.withdrewFor = s.withdrewFor
	}
	roles := map[string][]string{}
	for _, g := range o.groups {
		roles["team-"+g] = []string{g}
	}
	defaults := []string{everyone}
	if f.defaultAllGroups {
		defaults = append(defaults, o.groups...)
	}
	access := bot.NewAccessMap(nil, roles, nil, nil, defaults)
	access.EmailGroups = true // a verified address and its domain are groups (docs/identity.md)
	for _, r := range replicas {
		a, err := slackbot.New(ctx, slackbot.Options{
			BotToken: "xoxb-leakcheck", SigningSecret: s.secret, APIURL: s.fake.apiURL(),
			Handler: r.handler, Store: r.faulty, Access: access,
			// A pinned channel: its answers use at most these groups, within what every reader may read.
			ChannelGroups:  map[string][]string{o.channels[pinnedChannel].id: {everyone, o.groups[0]}},
			UpdateInterval: 50 * time.Millisecond, Logger: logger,
			// A visitor leaves a round (under a second) after joining, and one leave in eight is
			// lost: with the minute an organisation needs, each lost leave of a guest kept its
			// channel to no document for about a hundred rounds, and the floors measured that.
			// Four times trailFor still tells a trailing list from a leave.
			JoinerListGrace: 4 * trailFor,
			Gaps:            gapShares{Store: r.store, anyone: f.shareByAnyone},
		})
		if err != nil {
			s.close(ctx)
			return nil, err
		}
		s.serve(a, a.HTTPHandler("/slack"))
	}
	return s, nil
}

// close lets every answer in flight finish, then stops the servers and the fake.
func (s *slackSide) close(ctx context.Context) {
	s.shutdown(ctx, (*slackbot.Adapter).Shutdown)
	s.fake.close()
}

func (s *slackSide) nextTS() string {
	return fmt.Sprintf("1700000000.%06d", s.seq.Add(1))
}

// post sends a signed request to one replica's endpoint (events, interactions or commands).
func (s *slackSide) post(ctx context.Context, replica int, endpoint, contentType string, body []byte) error {
	header := http.Header{"Content-Type": {contentType}}
	slackload.Sign(header, body, s.secret, time.Now())
	if _, err := s.postSigned(ctx, replica, "/slack/"+endpoint, header, body); err != nil {
		return fmt.Errorf("slack %s: %w", endpoint, err)
	}
	return nil
}

// event posts an Events API callback carrying ev to one replica.
func (s *slackSide) event(ctx context.Context, replica int, ev map[string]any) error {
	ev["team"] = "T1"
	body, _ := json.Marshal(map[string]any{"token": "x", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
		"event_id": fmt.Sprintf("EvLeak%08d", s.seq.Add(1)), "event_time": time.Now().Unix(), "event": ev})
	return s.post(ctx, replica, "events", "application/json", body)
}

// wait waits for the final reply fin reports to the question asked in channel at ts; ok is
// false on timeout (logged, so that a silence can be found in cita's log).
func (s *slackSide) wait(ctx context.Context, fin chan slackFinal, channel, ts string) (slackFinal, bool) {
	f, ok, err := await(ctx, fin, s.timeout)
	if !ok && err == nil {
		s.logger.WarnContext(ctx, "leakcheck: no reply came", slog.String("path", s.fake.pathIn(channel)),
			slog.String("channel_id", channel), slog.String("ts", ts))
	}
	return f, ok
}

// mention asks text in a new thread of channel as p, and remembers the thread.
func (s *slackSide) mention(ctx context.Context, replica int, channel string, p *person, text string) (bool, error) {
	f, ts, ok, err := s.askMention(ctx, replica, channel, p, text)
	if err != nil {
		return false, err
	}
	if ok && f.answerID != 0 {
		s.mu.Lock()
		s.threads[channel] = append(s.threads[channel], slackThread{thread: ts, ts: f.ts, answerID: f.answerID, question: text})
		s.questions[channel+"/"+ts] = []string{text}
		s.mu.Unlock()
	}
	return ok, nil
}

// followUp asks text in an answered thread of channel, without a mention.
func (s *slackSide) followUp(ctx context.Context, replica int, channel string, th slackThread, p *person, text string) (bool, error) {
	ts := s.nextTS()
	s.mu.Lock()
	key := channel + "/" + th.thread
	s.questions[key] = append(s.questions[key], text)
	asked := slices.Clone(s.questions[key])
	s.mu.Unlock()
	s.oracle.ask(channel, asked...) // the thread's memory may quote its earlier questions
	fin := s.fake.expect(channel, "slack follow-up", th.thread)
	err := s.event(ctx, replica, map[string]any{"type": "message", "user": p.slackID, "text": text, "ts": ts,
		"thread_ts": th.thread, "channel": channel, "event_ts": ts, "channel_type": "channel"})
	if err != nil {
		return false, err
	}
	_, ok := s.wait(ctx, fin, channel, ts)
	return ok, nil
}

// dm asks text in p's direct message with the bot.
func (s *slackSide) dm(ctx context.Context, replica int, p *person, text string) (bool, error) {
	channel := "D" + p.slackID[1:]
	s.mu.Lock()
	s.questions[channel+"/"] = append(s.questions[channel+"/"], text) // the DM's memory (lostGroup)
	s.mu.Unlock()
	f, ok, err := s.askDM(ctx, replica, p, text)
	if err != nil {
		return false, err
	}
	if ok && f.answerID != 0 {
		s.rememberDM(p, channel, f, text)
	}
	return ok, nil
}

// slash asks text with /cita in channel: the answer is ephemeral, to p alone.
func (s *slackSide) slash(ctx context.Context, replica int, channel string, p *person, text string) (bool, error) {
	_, ok, err := s.askSlash(ctx, replica, channel, p, text)
	return ok, err
}

// askMention asks text in a new thread of channel as p and returns the final reply and the
// thread; ok is false on timeout.
func (s *slackSide) askMention(ctx context.Context, replica int, channel string, p *person, text string) (slackFinal, string, bool, error) {
	ts := s.nextTS()
	s.oracle.ask(channel, text)
	fin := s.fake.expect(channel, "slack mention", ts)
	err := s.event(ctx, replica, map[string]any{"type": "app_mention", "user": p.slackID, "text": "<@" + slackBot + "> " + text,
		"ts": ts, "channel": channel, "event_ts": ts})
	if err != nil {
		return slackFinal{}, ts, false, err
	}
	f, ok := s.wait(ctx, fin, channel, ts)
	return f, ts, ok, nil
}

// askDM asks text in p's direct message with the bot and returns the final reply.
func (s *slackSide) askDM(ctx context.Context, replica int, p *person, text string) (slackFinal, bool, error) {
	channel, ts := "D"+p.slackID[1:], s.nextTS()
	s.oracle.ask(channel, text)
	fin := s.fake.expect(channel, "slack direct message", "")
	err := s.event(ctx, replica, map[string]any{"type": "message", "user": p.slackID, "text": text, "ts": ts,
		"channel": channel, "event_ts": ts, "channel_type": "im"})
	if err != nil {
		return slackFinal{}, false, err
	}
	f, ok := s.wait(ctx, fin, channel, ts)
	return f, ok, nil
}

// askSlash asks text with /cita in channel (ephemeral) and returns the reply.
func (s *slackSide) askSlash(ctx context.Context, replica int, channel string, p *person, text string) (slackFinal, bool, error) {
	s.oracle.ask(channel, text)
	fin := s.fake.expect(channel, "slack /cita", "")
	form := url.Values{"command": {"/cita"}, "text": {text}, "team_id": {"T1"}, "channel_id": {channel},
		"user_id": {p.slackID}, "response_url": {"https://hooks.slack.example/x"}, "trigger_id": {"1.2.3"}, "token": {"x"}}
	if err := s.post(ctx, replica, "commands", "application/x-www-form-urlencoded", []byte(form.Encode())); err != nil {
		return slackFinal{}, false, err
	}
	f, ok := s.wait(ctx, fin, channel, "")
	return f, ok, nil
}

// explain clicks "How I answered" on an answer in channel as p, as path: the view is
// ephemeral, to p.
func (s *slackSide) explain(ctx context.Context, replica int, channel string, th slackThread, p *person, path string) (bool, error) {
	s.mu.Lock()
	asked := slices.Clone(s.questions[channel+"/"+th.thread])
	s.mu.Unlock()
	ok, text, err := s.click(ctx, replica, channel, th, p, path, asked)
	if ok {
		s.mu.Lock()
		s.explained[path+": "+explainOutcome(text)]++
		s.mu.Unlock()
	}
	return ok, err
}

// explainOutcome sorts what a "How I answered" click got, for the report: the view (of an
// answer that cited sources, abstained, or gave a reason) or a refusal (withdrawn, not the
// clicker's to see, an error).
func explainOutcome(text string) string {
	switch {
	case strings.Contains(text, "*Abstained:*"):
		return "view of an abstention"
	case strings.Contains(text, "*Not answered:*"):
		return "view of a reason"
	case strings.Contains(text, "How I answered"):
		return "view of a cited answer"
	case strings.Contains(text, "was withdrawn"):
		return "refused: withdrawn"
	case strings.Contains(text, "may not read all of its sources"):
		return "refused: not the clicker's to see"
	case strings.Contains(text, "isn't an answer you were shown"):
		return "refused: not the clicker's to see"
	}
	return "other: " + strings.SplitN(text, "\n", 2)[0]
}

// click clicks "How I answered" on th's answer in channel as p, its view checked as path's;
// asked are the questions of the conversation (the view shows them and the standalone query).
// It returns whether a reply came, and its text.
func (s *slackSide) click(ctx context.Context, replica int, channel string, th slackThread, p *person, path string, asked []string) (bool, string, error) {
	s.oracle.ask(channel, asked...)
	fin := s.fake.expect(channel, path, th.thread)
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": p.slackID, "team_id": "T1"}, "api_app_id": "A1",
		"container":  map[string]any{"type": "message", "message_ts": th.ts, "channel_id": channel, "thread_ts": th.thread},
		"trigger_id": "1.2.3", "team": map[string]any{"id": "T1"}, "channel": map[string]any{"id": channel},
		"message": map[string]any{"type": "message", "user": slackBot, "ts": th.ts, "thread_ts": th.thread},
		"actions": []any{map[string]any{"action_id": "cita_explain", "block_id": "b", "value": strconv.FormatInt(th.answerID, 10),
			"type": "button", "action_ts": "1700000000.000400"}},
	})
	body := "payload=" + url.QueryEscape(string(payload))
	if err := s.post(ctx, replica, "interactions", "application/x-www-form-urlencoded", []byte(body)); err != nil {
		return false, "", err
	}
	f, ok := s.wait(ctx, fin, channel, th.ts)
	return ok, f.text, nil
}

// announce sends the events of churn: a join or a leave to the channel, a user group change
// to the workspace; each to one replica. A leave only narrows who reads, but it stops cita
// counting a joiner the member list never showed (a lost one: a minute later).
func (s *slackSide) announce(ctx context.Context, rng *rand.Rand, changes []change) error {
	for _, c := range changes {
		ts := s.nextTS()
		var ev map[string]any
		switch c.kind {
		case "join":
			s.join(ctx, c.channel, c.person, rng)
			continue
		case "leave":
			s.oracle.departed(c.channel, c.person)
			if !s.noFaults && s.dice.oneIn("lost leave/"+c.channel, lostJoinOneIn) {
				continue // lost: cita stops counting a joiner the list never showed a minute later
			}
			ev = map[string]any{"type": "member_left_channel", "user": c.person.slackID, "channel": c.channel,
				"channel_type": "G", "event_ts": ts}
		case "grant", "revoke":
			ev = map[string]any{"type": "subteam_members_changed", "subteam_id": "S0000", "team_id": "T1", "event_ts": ts,
				"added_users": []string{}, "removed_users": []string{c.person.slackID}}
		default:
			continue
		}
		if err := s.event(ctx, rng.IntN(len(s.servers)), ev); err != nil {
			return err
		}
	}
	return nil
}

// thread returns a random answered thread of channel among its recent ones: where people
// follow up, withdrawn answer or not.
func (s *slackSide) thread(rng *rand.Rand, channel string) (slackThread, bool) {
	return s.pickThread(rng, channel, func(slackThread) bool { return true })
}

// buttonThread returns a random recent thread of channel whose answer shows "How I answered"
// now (standing true), or one whose answer does not any more (standing false: withdrawn, its
// message the notice, which a person cannot click but a stale or forged click can name).
// Clicking every answer alike made seed 23's 20,000-question run mostly click withdrawn answers
// (whose refusal is right): 9% of its tries showed anything.
func (s *slackSide) buttonThread(rng *rand.Rand, channel string, standing bool) (slackThread, bool) {
	return s.pickThread(rng, channel, func(th slackThread) bool { return s.fake.showsButton(channel, th.ts) == standing })
}

// pickThread returns a random thread among channel's recentThreads latest that keep holds for.
func (s *slackSide) pickThread(rng *rand.Rand, channel string, keep func(slackThread) bool) (slackThread, bool) {
	s.mu.Lock()
	ths := slices.Clone(s.threads[channel])
	s.mu.Unlock()
	// People follow up on, and open "How I answered" of, recent answers. Drawing from every
	// thread the run ever made turns a long run's clicks into clicks on long-withdrawn answers:
	// at 20,000 questions 7% of "How I answered" tries showed anything, against 24% at 2,000.
	ths = slices.DeleteFunc(ths[max(0, len(ths)-recentThreads):], func(th slackThread) bool { return !keep(th) })
	if len(ths) == 0 {
		return slackThread{}, false
	}
	return ths[rng.IntN(len(ths))], true
}

// recentThreads is how many of a channel's latest threads follow-ups and clicks go to.
const recentThreads = 32
