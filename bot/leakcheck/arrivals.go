package leakcheck

import (
	"time"
)

// How the oracle holds cita to the events it was told of (issue 29): a reader whose arrival
// reached cita as an event (member_joined_channel, team_join) must not wait for the sweep.
const (
	// eventWithdrawWithin bounds how long, after an arrival's event reached cita, what the
	// newcomer may not read may stay in front of them: cita withdraws it on the event itself,
	// in milliseconds, and retries a failing database for about 4 s (docs/security.md, "In
	// doubt means closed"). settle runs no sweep before it passes, so a sweep cannot stand in
	// for the event's own handling.
	eventWithdrawWithin = 5 * time.Second
	// trailFor is how long Slack's member list goes on without a joiner after their
	// member_joined_channel event (issue 29 reproduced 2 s).
	trailFor = 2500 * time.Millisecond
	// recordGrace is how long after cita recorded a joiner (AddReader returned) a write may still
	// arrive at Slack that was checked before: a write asked for later must have spared them.
	recordGrace = 200 * time.Millisecond
)

// arrival is what cita was told of one reader's arrival in a conversation, "channel/slack id"
// (a new member of the workspace arrives in every public channel: "*/slack id").
type arrival struct {
	delivered time.Time // when the event was sent to cita
	listedAt  time.Time // when Slack's member list shows them (after delivered: a trailing list)
	recorded  time.Time // when cita recorded them as a reader (bot.Audiences.AddReader)
	workspace bool      // team_join
}

// arrived records that p's arrival in channel ("*" for the whole workspace) is being sent to
// cita now, shown by the member list from listedAt.
func (or *oracle) arrived(channel string, p *person, listedAt time.Time, workspace bool) {
	or.mu.Lock()
	defer or.mu.Unlock()
	now := time.Now()
	if listedAt.Before(now) {
		listedAt = now
	}
	or.arrivals[channel+"/"+p.slackID] = &arrival{delivered: now, listedAt: listedAt, workspace: workspace}
	delete(or.lost, channel+"/"+p.slackID)
}

// recordedReader records that cita recorded user as a reader of channel (AddReader returned):
// from now on no write to that channel may show them what they may not read.
func (or *oracle) recordedReader(channel, user string) {
	or.mu.Lock()
	defer or.mu.Unlock()
	if a := or.arrivals[channel+"/"+user]; a != nil && a.recorded.IsZero() {
		a.recorded = time.Now()
	}
}

// arrivalLocked returns p's arrival in conversation, in it or in the workspace for a public
// channel; nil when cita was told of none. or.mu and or.org.mu are held.
func (or *oracle) arrivalLocked(conversation string, p *person) *arrival {
	if a := or.arrivals[conversation+"/"+p.slackID]; a != nil {
		return a
	}
	if c := or.org.slackBy[conversation]; c != nil && c.public && !p.guest {
		return or.arrivals["*/"+p.slackID]
	}
	return nil
}

// trailing reports whether p reads conversation while Slack's member list does not show them
// yet. or.mu and or.org.mu are held.
func (or *oracle) trailingLocked(conversation string, p *person) bool {
	a := or.arrivalLocked(conversation, p)
	return a != nil && !a.workspace && time.Now().Before(a.listedAt)
}

// Leak paths the arrivals add (Leak.Try strips them).
const (
	whileTrailing   = " (while the member list trailed)"
	afterRecorded   = " (written after the join was recorded)"
	arrivalJoin     = "withdrawal after a join ("
	arrivalTrailing = "withdrawal after a join the member list trailed ("
	arrivalLost     = "withdrawal after a lost join ("
	arrivalTeam     = "withdrawal after a workspace join ("
)

// recordedBeforeLocked reports whether cita had recorded p as a reader of conversation before
// issued, by more than recordGrace (a write asked for then must have spared them). or.mu is
// held.
func (or *oracle) recordedBeforeLocked(conversation string, p *person, issued time.Time) bool {
	a := or.arrivals[conversation+"/"+p.slackID]
	return a != nil && !a.recorded.IsZero() && a.recorded.Add(recordGrace).Before(issued)
}

// departed forgets p's arrival in channel: they left, and a later arrival is told anew (or
// lost).
func (or *oracle) departed(channel string, p *person) {
	or.mu.Lock()
	defer or.mu.Unlock()
	delete(or.arrivals, channel+"/"+p.slackID)
}

// overdue splits pending into the leaks whose withdrawal is owed to an event that reached
// cita more than eventWithdrawWithin ago, and the others; wait is how long until the next of
// the others' events falls due (0 when none is owed to an event).
func overdue(pending []Leak, now time.Time) (late, rest []Leak, wait time.Duration) {
	for _, l := range pending {
		switch due := l.owed.Add(eventWithdrawWithin); {
		case l.owed.IsZero():
			rest = append(rest, l)
		case now.After(due):
			late = append(late, l)
		default:
			rest = append(rest, l)
			if d := due.Sub(now); wait == 0 || d < wait {
				wait = d
			}
		}
	}
	return late, rest, wait
}
