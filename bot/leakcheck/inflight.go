package leakcheck

import (
	"context"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
)

// writeFault is what happens to a chat write of a final answer while someone joins its channel.
type writeFault int

const (
	writeOK        writeFault = iota // written at once
	writeThrottled                   // 429 with Retry-After: the adapter writes it again later
	writeSlow                        // written, but only after a while: the join lands first
	writeRefused                     // refused (internal_error): the adapter posts it instead
)

func (f writeFault) String() string {
	return [...]string{"written", "throttled", "slow", "refused"}[f]
}

// In-flight churn rates and waits, per final answer written in a channel.
const (
	// inFlightOneIn: a join while the final write is in flight, once in n. Each costs its round up
	// to a second (a 429's Retry-After) or slowWrite, so it stays rare enough for 20,000
	// questions in reasonable time. slowWrite only has to outlast the join's check on the other
	// replica (tens of milliseconds here); 1.5 s made slow writes the longest wait of a round.
	inFlightOneIn = 12
	lostJoinOneIn = 8 // a join whose member_joined_channel event is lost, once in n
	trailingOneIn = 3 // a delivered join that conversations.members shows only trailFor later, once in n
	retryAfter    = "1"
	slowWrite     = 600 * time.Millisecond
)

// duringWrite is called by the fake Slack for every write of a final answer in a channel,
// before it is applied. Now and then (and always after the answer could not be recorded)
// someone who may not read what the answer shows joins the channel while the write is in
// flight, and the write is throttled, slow or refused, so the join is heard while the adapter
// still holds the answer. The join's event reaches one replica, or is lost.
func (s *slackSide) duringWrite(channel, ts, text string) writeFault {
	s.mu.Lock()
	forced := s.forceJoin[channel]
	delete(s.forceJoin, channel)
	again := s.faulted[channel+"/"+ts]
	if ts == "" && s.faulted[channel+"/repost"] {
		// The post cita makes of a reply whose update was refused: one fault per reply (a
		// second refusal in a row leaves the asker with the placeholder; see the report).
		delete(s.faulted, channel+"/repost")
		again = true
	}
	s.mu.Unlock()
	if (s.noFaults || again) && !forced {
		return writeOK
	}
	rng := s.dice.draw("in-flight/" + channel)
	oneIn := inFlightOneIn
	if s.faults.inFlightOneIn > 0 {
		oneIn = s.faults.inFlightOneIn
	}
	if rng.IntN(oneIn) != 0 && !forced {
		return writeOK
	}
	fault := writeFault(1 + rng.IntN(3))
	if forced {
		fault = writeSlow // the join lands before the unrecorded answer is shown
	}
	if ts != "" {
		s.mu.Lock()
		s.faulted[channel+"/"+ts] = true
		if fault == writeRefused {
			s.faulted[channel+"/repost"] = true
		}
		s.mu.Unlock()
	}
	if p := s.oracle.outsider(channel, text, rng); p != nil {
		s.inFlightJoins.Add(1)
		s.join(context.Background(), channel, p, rng)
	}
	return fault
}

// join sends p's member_joined_channel to one replica, or loses it; p is a member already. Now
// and then Slack's member list goes on without p for a while after the event (trailFor).
func (s *slackSide) join(ctx context.Context, channel string, p *person, rng *rand.Rand) {
	if s.faults.dropJoins || (!s.noFaults && s.dice.oneIn("lost join/"+channel, lostJoinOneIn)) {
		s.oracle.lostJoin(channel, p)
		s.lostJoins.Add(1)
		return
	}
	if s.faults.failJoinLookups > 0 {
		s.fake.failMembers(channel, s.faults.failJoinLookups)
	}
	var listedAt time.Time
	if s.faults.trailingLists || (!s.noFaults && s.dice.oneIn("trailing list/"+channel, trailingOneIn)) {
		listedAt = time.Now().Add(trailFor)
		s.fake.trail(channel, p.slackID, listedAt)
		s.trailingJoins.Add(1)
	}
	s.oracle.arrived(channel, p, listedAt, false)
	s.sendJoin(ctx, channel, p, rng)
}

// deliverJoin sends p's member_joined_channel to one replica, never lost, with the member list
// showing p at once.
func (s *slackSide) deliverJoin(ctx context.Context, channel string, p *person, rng *rand.Rand) {
	s.oracle.arrived(channel, p, time.Time{}, false)
	s.sendJoin(ctx, channel, p, rng)
}

// sendJoin sends p's member_joined_channel to one replica.
func (s *slackSide) sendJoin(ctx context.Context, channel string, p *person, rng *rand.Rand) {
	ev := map[string]any{"type": "member_joined_channel", "user": p.slackID, "channel": channel, "channel_type": "G", "event_ts": s.nextTS()}
	if err := s.event(ctx, rng.IntN(len(s.servers)), ev); err != nil {
		s.oracle.fail([]Leak{{Path: "slack join event", Where: channel, Reader: p.describe(), Excerpt: "the event could not be delivered: " + err.Error()}})
	}
}

// recordFailed makes someone join conv's channel while its next reply is written: an answer
// that could not be recorded must not be shown, since nothing could ever withdraw it.
func (s *slackSide) recordFailed(conv bot.ConversationKey) {
	if conv.Platform != "slack" || !strings.HasPrefix(conv.Channel, "C") {
		return
	}
	s.mu.Lock()
	s.forceJoin[conv.Channel] = true
	s.mu.Unlock()
}

// applyWriteFault writes the fault's response when the write is not applied now; it reports
// whether it did. A slow write waits, then is applied.
func applyWriteFault(w http.ResponseWriter, fault writeFault) bool {
	switch fault {
	case writeThrottled:
		w.Header().Set("Retry-After", retryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	case writeRefused:
		writeJSON(w, map[string]any{"ok": false, "error": "internal_error"})
		return true
	case writeSlow:
		time.Sleep(slowWrite)
	}
	return false
}

// outsider picks, with rng, someone who cannot read channel now and may not read a code text
// shows, and makes them a member; nil when there is nobody such (the text shows nothing
// restricted, or everyone reads it).
func (or *oracle) outsider(channel, text string, rng *rand.Rand) *person {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.org.mu.Lock()
	defer or.org.mu.Unlock()
	c := or.org.slackBy[channel]
	if c == nil {
		return nil
	}
	codes := or.codesIn(channel, text)
	readers := or.org.slackReadersLocked(channel)
	var out []*person
	for _, p := range or.org.people {
		if !slices.Contains(readers, p) && !or.mayReadAllLocked(p, "slack", codes) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	p := out[rng.IntN(len(out))]
	c.joinLocked(p)
	or.org.visitors = append(or.org.visitors, change{kind: "join", person: p, channel: channel})
	return p
}
