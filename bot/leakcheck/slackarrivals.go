package leakcheck

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// The third edition's Slack arrivals (issue 29): new members of the workspace, and people who
// join a channel while an answer there is being prepared, its member list failing.
const (
	workspaceJoinOneIn = 6 // a churn round that adds a member to the workspace, once in n
	preparedJoinOneIn  = 8 // a Slack channel answer whose channel someone joins while it is prepared, once in n
	// preparedLookupFailures is how many conversations.members calls fail in the channel after
	// a join during an answer's preparation: the join's own check and its retries.
	preparedLookupFailures = 6
	// preparedWait bounds the wait for cita to record a join made during an answer's
	// preparation; a join it does not record in time only loses the scenario its strictness.
	preparedWait = 3 * time.Second
)

// departNewcomers deactivates last round's new members of the workspace (user_change with
// deleted, to one replica each) and reports whether there were any: public channels answer
// from the domain's documents again only once they are gone.
func (s *slackSide) departNewcomers(ctx context.Context) (bool, error) {
	s.org.mu.Lock()
	departed := s.org.departNewcomersLocked()
	var users []map[string]any
	for _, p := range departed {
		users = append(users, s.fake.userJSON(p))
	}
	s.org.mu.Unlock()
	for _, u := range users {
		if err := s.event(ctx, s.dice.intN("workspace leaver", len(s.servers)), map[string]any{"type": "user_change", "user": u, "event_ts": s.nextTS()}); err != nil {
			return false, err
		}
	}
	return len(users) > 0, nil
}

// newcomer makes someone from another domain a full member of the workspace and sends team_join
// to one replica: they read every public channel from now on, and the answers there they may
// not read (the domain's documents) are owed a withdrawal on the event itself. A team_join is
// never lost here: cita learns of a lost one within scope_cache_ttl, a bound of minutes the
// harness does not model.
func (s *slackSide) newcomer(ctx context.Context) error {
	rng := s.dice.draw("workspace joiner")
	s.org.mu.Lock()
	p := s.org.newcomerJoinsLocked(rng)
	user := s.fake.userJSON(p)
	s.org.mu.Unlock()
	s.oracle.arrived("*", p, time.Time{}, true)
	s.workspaceJoins.Add(1)
	return s.event(ctx, rng.IntN(len(s.servers)), map[string]any{"type": "team_join", "user": user, "event_ts": s.nextTS()})
}

// workspaceJoin, after each churn: last round's new members of the workspace leave it; in a
// round without any, now and then (from the run's dice) someone first asks, in the public
// channel without guests, about the document shared with the domain (so that a public answer
// shows it), then a new member from another domain joins the workspace (slackSide.newcomer).
func (r *run) workspaceJoin(ctx context.Context) error {
	s := r.slack
	if left, err := s.departNewcomers(ctx); err != nil || left {
		return err // a round without a newcomer: their presence narrows every public channel
	}
	if !s.faults.workspaceJoins && (s.noFaults || !s.dice.oneIn("workspace join", workspaceJoinOneIn)) {
		return nil
	}
	if a, ok := r.domainQuestion(); ok {
		if err := r.do(ctx, a); err != nil {
			return err
		}
	}
	return s.newcomer(ctx)
}

// domainQuestion plans a mention, in the first public channel not pinned (which starts without
// guests: newOrg), by one of its full members, about the document shared with the domain.
func (r *run) domainQuestion() (action, bool) {
	rng := r.dice.draw("domain question")
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	c := r.org.openChannelLocked()
	if c == nil {
		return action{}, false
	}
	var askers []*person
	for _, p := range r.org.people {
		if c.members[p.slackID] && !p.guest {
			askers = append(askers, p)
		}
	}
	if len(askers) == 0 {
		return action{}, false
	}
	return action{path: pathSlackMention, replica: rng.IntN(len(r.reps)), channel: c.id, p: askers[rng.IntN(len(askers))],
		text: fmt.Sprintf("What is the %s canary phrase?", domainTopic)}, true
}

// preparing is told of every answer about to be recorded (faultStore.ReserveAnswer). Now and
// then, for a Slack channel, someone who may not read what it may use joins the channel before
// it is recorded, the join's event reaches a replica, conversations.members fails for a while,
// and the answer goes on only once cita recorded the joiner: its scope was computed before the
// join, so only the check of every write against the recorded readers stands between the
// joiner and its text (a write after the join was recorded is a leak at once:
// oracle.recordedBeforeLocked).
func (s *slackSide) preparing(ctx context.Context, rec *bot.AnswerRecord) {
	channel := rec.Conversation.Channel
	if rec.Conversation.Platform != "slack" || !strings.HasPrefix(channel, "C") {
		return
	}
	if !s.faults.preparedJoins && (s.noFaults || !s.dice.oneIn("prepared join/"+channel, preparedJoinOneIn)) {
		return
	}
	rng := s.dice.draw("prepared joiner/" + channel)
	p := s.oracle.stranger2(channel, rec.Consulted, s.faults.preparedJoins, rng)
	if p == nil {
		return
	}
	recorded := s.awaitRecorded(channel, p.slackID)
	s.fake.failMembers(channel, preparedLookupFailures)
	s.preparedJoins.Add(1)
	for _, path := range []string{pathSlackMention, pathSlackFollowUp} {
		s.fake.retitle(channel, path, path+joinedWhileAnswering)
	}
	s.deliverJoin(ctx, channel, p, rng)
	wait := preparedWait
	if s.faults.preparedJoins {
		// The break's run: a join cita recorded late would not test the writes after it.
		wait = s.timeout
	}
	select {
	case <-recorded:
		time.Sleep(recordGrace) // writes checked before the record have reached Slack
	case <-time.After(wait):
		s.logger.WarnContext(ctx, "leakcheck: cita did not record a join in time", slog.String("channel_id", channel), slog.String("user_id", p.slackID))
	case <-ctx.Done():
	}
}

// joinedWhileAnswering names the tries whose answer someone joined the channel during
// (preparing): whatever the joiner may not read must not be shown at all, so they have no
// floor of allowed codes.
const joinedWhileAnswering = " with a join while answering"

// stranger2 picks, with rng, someone who cannot read channel now and may not read one of the
// documents consulted for the answer being prepared, and makes them a member until the next
// churn. With none, true (the break's run), it picks among those who may read none of them, so
// that whatever the answer shows of them they may not read; otherwise among the full members
// (as most visitors are: a guest reads no document, and one whose leave event is lost counts
// for a minute, keeping the channel's answers to no document for that long, which the floors
// would then measure instead of cita). Failing those, it picks among everyone who may not read
// one of them, then among those who lack one of the organisation's groups (guests lack them
// all); nil when there is nobody at all.
func (or *oracle) stranger2(channel string, consulted []bot.SourceRef, none bool, rng *rand.Rand) *person {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.org.mu.Lock()
	defer or.org.mu.Unlock()
	c := or.org.slackBy[channel]
	if c == nil {
		return nil
	}
	docs := or.corpus.byIDs(consulted)
	readers := or.org.slackReadersLocked(channel)
	var readNone, members, unreading, lacking []*person
	for _, p := range or.org.people {
		if slices.Contains(readers, p) {
			continue
		}
		groups := or.org.groupsOfLocked(p, true)
		unread := 0
		for _, d := range docs {
			if !d.mayRead(groups) {
				unread++
			}
		}
		if unread > 0 {
			unreading = append(unreading, p)
			if unread == len(docs) {
				readNone = append(readNone, p)
			}
			if !p.guest {
				members = append(members, p)
			}
		} else if p.guest || len(p.groups) < len(or.org.groups) {
			lacking = append(lacking, p)
		}
	}
	tiers := [][]*person{members, unreading, lacking}
	if none {
		tiers = [][]*person{readNone, unreading, lacking}
	}
	for _, out := range tiers {
		if len(out) > 0 {
			p := out[rng.IntN(len(out))]
			c.joinLocked(p)
			or.org.visitors = append(or.org.visitors, change{kind: "join", person: p, channel: channel})
			return p
		}
	}
	return nil
}

// recordWaits are the waits of preparing for cita to record a joiner (AddReader) and then
// withdraw what they may not read (RedactUnreadable with their scope alone).
type recordWaits struct {
	mu      sync.Mutex
	waiting map[string]*recordWait // "channel/user"
}

type recordWait struct {
	added bool
	done  chan struct{}
}

// awaitRecorded returns what closes once cita recorded user as a reader of channel and then
// withdrew the answers there their scope may not read.
func (s *slackSide) awaitRecorded(channel, user string) chan struct{} {
	w := &recordWait{done: make(chan struct{})}
	s.waits.mu.Lock()
	defer s.waits.mu.Unlock()
	if s.waits.waiting == nil {
		s.waits.waiting = map[string]*recordWait{}
	}
	s.waits.waiting[channel+"/"+user] = w
	return w.done
}

// readerAdded is told that cita recorded user as a reader of channel (faultStore.AddReader).
func (s *slackSide) readerAdded(channel, user string) {
	if user == "" {
		return
	}
	s.oracle.recordedReader(channel, user)
	s.waits.mu.Lock()
	defer s.waits.mu.Unlock()
	if w := s.waits.waiting[channel+"/"+user]; w != nil {
		w.added = true
	}
}

// withdrewFor is told that cita withdrew the answers of channel readers may not read
// (faultStore.RedactUnreadable): the join a wait is for is handled once its reader was added.
func (s *slackSide) withdrewFor(channel string, readers []rag.Scope) {
	if len(readers) != 1 {
		return
	}
	s.waits.mu.Lock()
	defer s.waits.mu.Unlock()
	for key, w := range s.waits.waiting {
		if w.added && strings.HasPrefix(key, channel+"/") {
			close(w.done)
			delete(s.waits.waiting, key)
		}
	}
}
