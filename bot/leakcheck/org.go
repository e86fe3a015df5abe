package leakcheck

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// everyone is the group of every full (non-guest) member.
const everyone = "everyone"

// person is one member of the randomized organisation: a Slack account, a Discord member and an
// e-mail that MCP tokens are issued to. Their restricted groups are held through Slack user
// groups, Discord roles and the directory alike, so one change moves all three.
type person struct {
	n         int
	slackID   string // U…
	discordID string // numeric snowflake
	email     string
	guest     bool            // a Slack guest: no default groups, reads only the channels they are in
	groups    map[string]bool // restricted groups held now
	// grantedAt is when each group held now was granted during the run (zero: from the start).
	grantedAt map[string]time.Time
	// arrived is when they joined the workspace during the run (team_join; zero: from the
	// start). Such newcomers have an address outside the organisation's domain (a contractor
	// made a full member): they read every public channel, without the domain's group.
	arrived time.Time
	foreign bool
	// deleted: deactivated (a newcomer leaves the workspace at the next churn); reads nothing.
	deleted bool
}

// slackChannel is a channel of the fake Slack workspace.
type slackChannel struct {
	id      string
	public  bool
	members map[string]bool // Slack user ids
	// joined is when each member joined during the run (absent: from the start).
	joined map[string]time.Time
}

// discordChannel is a text channel of the fake guild: public (every member sees it) or visible
// only to the roles of its groups.
type discordChannel struct {
	id     string
	groups []string // empty: public
}

// org is the randomized organisation and the ground truth of who may read what. Every fake reads
// it under mu, and so does the oracle; churn changes it between rounds of questions.
type org struct {
	mu       sync.Mutex
	groups   []string // restricted groups
	topics   map[string]string
	people   []*person
	bySlack  map[string]*person
	byDisc   map[string]*person
	channels []*slackChannel
	slackBy  map[string]*slackChannel
	dchans   []*discordChannel
	dchanBy  map[string]*discordChannel
	guildID  string
	ownerID  string
	// guestJoins makes every channel move a guest joining (set up for the join faults).
	guestJoins bool
	// visitors joined while a reply was written; they leave at the next churn, so channels keep
	// near their size and their answers keep carrying codes.
	visitors []change
	// newcomers joined the Slack workspace during the run (team_join): they read its public
	// channels. They are not among people (who ask, and hold Discord roles and MCP tokens).
	newcomers []*person
}

// orgSize sets how large a random organisation is.
type orgSize struct {
	groups, people, slackChannels, discordChannels int
}

var syllables = []string{"vor", "lak", "min", "taro", "quel", "dris", "pon", "zu", "mek", "ral", "sif", "olt", "brun", "kae", "tiv", "nox"}

// newOrg builds a random organisation from rng.
func newOrg(rng *rand.Rand, size orgSize) *org {
	o := &org{topics: map[string]string{}, bySlack: map[string]*person{}, byDisc: map[string]*person{},
		slackBy: map[string]*slackChannel{}, dchanBy: map[string]*discordChannel{}, guildID: "910000000000000001"}
	used := map[string]bool{}
	for i := range size.groups {
		g := fmt.Sprintf("lk-%s%d", randomWord(rng, 2), i)
		o.groups = append(o.groups, g)
		topic := randomWord(rng, 3)
		for used[topic] {
			topic = randomWord(rng, 3)
		}
		used[topic] = true
		o.topics[g] = topic
	}
	for i := range size.people {
		p := &person{n: i, slackID: fmt.Sprintf("U%05d", i), discordID: fmt.Sprintf("%d", 920000000000000000+i),
			email: fmt.Sprintf("p%d@leaks.example", i), guest: i > 2 && rng.IntN(6) == 0, groups: map[string]bool{},
			grantedAt: map[string]time.Time{}}
		for _, g := range o.groups {
			if rng.IntN(3) == 0 {
				p.groups[g] = true
			}
		}
		o.people = append(o.people, p)
		o.bySlack[p.slackID] = p
		o.byDisc[p.discordID] = p
	}
	// Person 0 holds every group and owns the guild (the owner sees every Discord channel).
	for _, g := range o.groups {
		o.people[0].groups[g] = true
	}
	o.ownerID = o.people[0].discordID
	for i := range size.slackChannels {
		c := &slackChannel{id: fmt.Sprintf("C%05d", i), public: rng.IntN(3) == 0, members: map[string]bool{}, joined: map[string]time.Time{}}
		for _, p := range o.people {
			if rng.IntN(3) == 0 {
				c.members[p.slackID] = true
			}
		}
		o.channels = append(o.channels, c)
		o.slackBy[c.id] = c
	}
	// The first public channel that is not pinned starts without guests (no rng is drawn: a
	// seed's organisation stays as it was otherwise): a public channel with a guest answers
	// from no document (the guest shares no group with the workspace), and one that answers
	// from the domain's is what a new member of the workspace (team_join) reads without joining.
	if c := o.openChannelLocked(); c != nil {
		for _, p := range o.people {
			if p.guest {
				delete(c.members, p.slackID)
			}
		}
	}
	for i := range size.discordChannels {
		c := &discordChannel{id: fmt.Sprintf("%d", 930000000000000000+i)}
		if i > 0 { // channel 0 is public
			c.groups = pickGroups(rng, o.groups, 1+rng.IntN(2))
		}
		o.dchans = append(o.dchans, c)
		o.dchanBy[c.id] = c
	}
	return o
}

func randomWord(rng *rand.Rand, parts int) string {
	var b strings.Builder
	for range parts {
		b.WriteString(syllables[rng.IntN(len(syllables))])
	}
	return b.String()
}

func pickGroups(rng *rand.Rand, groups []string, n int) []string {
	idx := rng.Perm(len(groups))[:min(n, len(groups))]
	out := make([]string, 0, len(idx))
	for _, i := range idx {
		out = append(out, groups[i])
	}
	slices.Sort(out)
	return out
}

// domainGroup is the identity group of every member's verified address's domain.
const domainGroup = "domain:leaks.example"

// groupsOfLocked returns every group p may read now: everyone (unless a guest), the restricted
// ones held and, where the platform vouches for their e-mail (Slack, MCP, the CLI; not Discord),
// their identity groups: the address and, unless a guest, its domain. o.mu is held.
func (o *org) groupsOfLocked(p *person, identity bool) map[string]bool {
	out := make(map[string]bool, len(p.groups)+3)
	for g := range p.groups {
		out[g] = true
	}
	if !p.guest {
		out[everyone] = true
	}
	if identity {
		out[p.email] = true
		if !p.guest && !p.foreign {
			out[domainGroup] = true
		}
	}
	return out
}

// identityPath reports whether the platform of path vouches for e-mail addresses: every path
// but Discord's (bots get no member's address there).
func identityPath(path string) bool { return !strings.HasPrefix(path, "discord") }

// heldGroups returns p's restricted groups, sorted.
func (o *org) heldGroups(p *person) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return sortedKeys(p.groups)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// slackReadersLocked returns who can read a Slack conversation now: a DM's person, a private
// channel's members, and for a public channel also every full member of the workspace.
func (o *org) slackReadersLocked(channel string) []*person {
	if strings.HasPrefix(channel, "D") {
		if p := o.bySlack["U"+channel[1:]]; p != nil {
			return []*person{p}
		}
		return nil
	}
	c := o.slackBy[channel]
	if c == nil {
		return nil
	}
	var out []*person
	for _, p := range o.people {
		if c.members[p.slackID] || (c.public && !p.guest) {
			out = append(out, p)
		}
	}
	if c.public {
		for _, p := range o.newcomers {
			if !p.deleted {
				out = append(out, p)
			}
		}
	}
	return out
}

// departNewcomersLocked deactivates every new member of the workspace still active, and returns
// them: like visitors of a channel, they stay one round, so the domain's documents keep
// reaching public channels in between. o.mu is held.
func (o *org) departNewcomersLocked() []*person {
	var out []*person
	for _, p := range o.newcomers {
		if !p.deleted {
			p.deleted = true
			out = append(out, p)
		}
	}
	return out
}

// newcomerJoinsLocked adds a new full member of the workspace: someone from another domain, with
// some of the organisation's groups, who reads every public channel from now on. o.mu is held.
func (o *org) newcomerJoinsLocked(rng *rand.Rand) *person {
	n := len(o.people) + len(o.newcomers)
	p := &person{n: n, slackID: fmt.Sprintf("U%05d", n), discordID: fmt.Sprintf("%d", 920000000000000000+n),
		email: fmt.Sprintf("p%d@elsewhere.example", n), groups: map[string]bool{}, grantedAt: map[string]time.Time{},
		arrived: time.Now(), foreign: true}
	for _, g := range o.groups {
		if rng.IntN(2) == 0 {
			p.groups[g] = true
		}
	}
	o.newcomers = append(o.newcomers, p)
	o.bySlack[p.slackID] = p
	return p
}

// discordReadersLocked returns who can see a Discord channel now: every member for a public
// channel; the owner and the holders of one of its groups' roles otherwise. Guests are not in the
// guild. A DM channel ("dm:<user id>") is its person's.
func (o *org) discordReadersLocked(channel string) []*person {
	if id, ok := strings.CutPrefix(channel, "dm:"); ok {
		if p := o.byDisc[id]; p != nil {
			return []*person{p}
		}
		return nil
	}
	c := o.dchanBy[channel]
	if c == nil {
		return nil
	}
	var out []*person
	for _, p := range o.people {
		if p.guest {
			continue
		}
		if len(c.groups) == 0 || p.discordID == o.ownerID || slices.ContainsFunc(c.groups, func(g string) bool { return p.groups[g] }) {
			out = append(out, p)
		}
	}
	return out
}

// change is one membership change of a churn step, for the report and for the events.
type change struct {
	kind    string // "join", "leave", "grant", "revoke"
	person  *person
	channel string // join, leave
	group   string // grant, revoke
}

// churn changes the organisation at random: people join and leave Slack channels and gain and
// lose groups (Slack user groups, Discord roles, the directory). It returns the changes.
// Channels stay near their first size, and guests leave soon after they join, as in an
// organisation: a random walk would fill every channel with guests, whose readers then share no
// group and whose answers would carry no canary left to leak.
func (o *org) churn(rng *rand.Rand, n int) []change {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []change
	for _, v := range o.visitors {
		if c := o.slackBy[v.channel]; c != nil && c.members[v.person.slackID] {
			delete(c.members, v.person.slackID)
			delete(c.joined, v.person.slackID)
			out = append(out, change{kind: "leave", person: v.person, channel: v.channel})
		}
	}
	o.visitors = nil
	for range n {
		if rng.IntN(2) == 0 {
			out = append(out, o.moveLocked(rng))
			continue
		}
		p := o.people[1+rng.IntN(len(o.people)-1)] // the owner keeps every group
		g := o.groups[rng.IntN(len(o.groups))]
		if p.groups[g] {
			delete(p.groups, g)
			delete(p.grantedAt, g)
			out = append(out, change{kind: "revoke", person: p, group: g})
		} else {
			p.groups[g] = true
			p.grantedAt[g] = time.Now()
			out = append(out, change{kind: "grant", person: p, group: g})
		}
	}
	return out
}

// moveLocked makes someone join or leave a random channel. o.mu is held.
func (o *org) moveLocked(rng *rand.Rand) change {
	c := o.channels[rng.IntN(len(o.channels))]
	var members, others, guests []*person
	for _, p := range o.people {
		switch {
		case c.members[p.slackID] && p.guest:
			guests = append(guests, p)
			members = append(members, p)
		case c.members[p.slackID]:
			members = append(members, p)
		default:
			others = append(others, p)
		}
	}
	join := rng.IntN(4) != 0
	if len(members) > len(o.people)/3 {
		join = rng.IntN(4) == 0
	}
	if o.guestJoins {
		var outside []*person
		for _, p := range others {
			if p.guest {
				outside = append(outside, p)
			}
		}
		if len(outside) > 0 && len(members) > 0 {
			join, others = true, outside
		}
	}
	if (join && len(others) > 0) || len(members) == 0 {
		p := others[rng.IntN(len(others))]
		c.joinLocked(p)
		return change{kind: "join", person: p, channel: c.id}
	}
	p := members[rng.IntN(len(members))]
	if len(guests) > 0 && rng.IntN(4) != 0 {
		p = guests[rng.IntN(len(guests))]
	}
	delete(c.members, p.slackID)
	delete(c.joined, p.slackID)
	return change{kind: "leave", person: p, channel: c.id}
}

// joinLocked makes p a member of c from now on. o.mu is held.
func (c *slackChannel) joinLocked(p *person) {
	c.members[p.slackID] = true
	c.joined[p.slackID] = time.Now()
}

// newcomerLocked reports whether p became a reader of conversation after since: a Slack member
// who joined since, a Discord member whose every role that shows the channel was granted since.
// Whoever reads a conversation because of a change made while an answer was in flight is owed
// a withdrawal, in time, rather than an answer that never named them: cita may hear of the
// change only after it wrote. o.mu is held.
func (o *org) newcomerLocked(p *person, conversation string, since time.Time) bool {
	if c := o.slackBy[conversation]; c != nil {
		if c.public && !p.guest {
			return p.arrived.After(since)
		}
		t, ok := c.joined[p.slackID]
		return ok && t.After(since)
	}
	c := o.dchanBy[conversation]
	if c == nil || len(c.groups) == 0 || p.discordID == o.ownerID {
		return false
	}
	var earliest time.Time
	for _, g := range c.groups {
		if t := p.grantedAt[g]; p.groups[g] && (earliest.IsZero() || t.Before(earliest)) {
			earliest = t
			if t.IsZero() {
				return false
			}
		}
	}
	return earliest.After(since)
}

// pinnedChannel is the index of the Slack channel the harness pins to everyone and one group
// (slack.channel_groups).
const pinnedChannel = 1

// openChannelLocked returns the first public Slack channel that is not pinned; nil when none.
// o.mu is held (or o is not shared yet).
func (o *org) openChannelLocked() *slackChannel {
	for i, c := range o.channels {
		if c.public && i != pinnedChannel {
			return c
		}
	}
	return nil
}
