package leakcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
)

// The gap record's paths (issue 32): at the end of a run, gap questions carrying canaries are
// asked where everyone can see them (a public channel) and where they are their askers' alone
// (a private channel, a DM, /cita); some DM questions are shared with "Tell the document owners",
// by their asker or by someone else. Then the record is read as the operator does (`cita gaps`)
// and as a public channel's digest. No private question's canary, and no count of one, may show;
// the digest goes through the fake Slack, so the oracle checks the documents it names against the
// channel's readers like any message.

// Paths of the gap record in the report.
const (
	pathGapReport = "gap report"
	pathGapDigest = "gap digest"
)

// gapQuestions is how many gap questions the gap phase asks.
const gapQuestions = 36

// gapShares is the store the Slack adapters record shares in. With shareByAnyone (a deliberate
// break) anyone's click shares the question as if its asker had.
type gapShares struct {
	*pgbot.Store
	anyone bool
}

func (g gapShares) ShareGap(ctx context.Context, answerID int64, userID string) error {
	if g.anyone {
		if rec, err := g.Store.LoadAnswer(ctx, answerID); err == nil {
			userID = rec.AskerID
		}
	}
	return g.Store.ShareGap(ctx, answerID, userID)
}

// wideDigest is the digest's store with digestIgnoresReaders (a deliberate break): the report a
// channel's digest is built from names every document, whoever reads the channel.
type wideDigest struct {
	*pgbot.Store
	wide rag.Scope
}

func (w wideDigest) GapReport(ctx context.Context, q bot.GapQuery) ([]bot.GapTopic, error) {
	q.Reader = w.wide
	return w.Store.GapReport(ctx, q)
}

// gapAsked is one gap question of the phase: its canary, and whether the record may show it.
type gapAsked struct {
	canary  string
	visible bool // asked in a public channel, or shared by its asker
	gap     bool // the reply was "I couldn't find this" or hedged: a gap
}

// gapPhase asks the gap questions, then reads the record as the operator and as a digest.
func (r *run) gapPhase(ctx context.Context) error {
	s, o := r.slack, r.org
	start := time.Now()
	o.mu.Lock()
	var public, private []*slackChannel
	for _, c := range o.channels {
		if c.public {
			public = append(public, c)
		} else {
			private = append(private, c)
		}
	}
	var people []*person
	for _, p := range o.people {
		if !p.guest && !p.deleted {
			people = append(people, p)
		}
	}
	o.mu.Unlock()
	if len(public) == 0 || len(people) < 2 {
		return nil
	}
	var asked []gapAsked
	for i := range gapQuestions {
		canary := fmt.Sprintf("GAPQ%05d", i)
		text := fmt.Sprintf("is there a %s %s for the %s team %s?", randomWord(r.rng, 2), randomWord(r.rng, 1), randomWord(r.rng, 2), canary)
		asker := people[r.rng.IntN(len(people))]
		replica := r.rng.IntN(len(s.adapters))
		q := gapAsked{canary: canary}
		var fin slackFinal
		var ok bool
		var err error
		switch kind := i % 6; kind {
		case 0: // a public channel: the record may show it
			c := public[r.rng.IntN(len(public))]
			fin, _, ok, err = s.askMention(ctx, replica, c.id, asker, text)
			q.visible = true
		case 1, 5: // a private channel; kind 5: "shared" by another member of it, which only its asker may
			c, members := r.privateWithMembers(private, people, 2)
			if c == nil {
				continue
			}
			fin, _, ok, err = s.askMention(ctx, replica, c.id, members[0], text)
			if err == nil && ok && fin.answerID != 0 && kind == 5 {
				err = s.shareGap(ctx, replica, c.id, members[1], fin.answerID)
			}
		case 2: // /cita in a public channel: ephemeral, the asker's alone
			fin, ok, err = s.askSlash(ctx, replica, public[r.rng.IntN(len(public))].id, asker, text)
		case 3: // a DM, kept
			fin, ok, err = s.askDM(ctx, replica, asker, text)
		case 4: // a DM shared by its asker: the record may show it
			fin, ok, err = s.askDM(ctx, replica, asker, text)
			if err == nil && ok && fin.answerID != 0 {
				err = s.shareGap(ctx, replica, "D"+asker.slackID[1:], asker, fin.answerID)
				q.visible = err == nil
			}
		}
		if err != nil {
			return err
		}
		q.gap = ok && (strings.Contains(fin.text, "couldn't find") || strings.Contains(fin.text, "not sure"))
		asked = append(asked, q)
	}
	store := r.reps[0].store
	if _, err := store.AssignGapTopics(ctx, rag.NewTopicReader(nil, nil).Signature, 0); err != nil {
		return fmt.Errorf("group gaps: %w", err)
	}
	// The operator's report: every document may be named, no private question.
	rep, err := store.GapReport(ctx, bot.GapQuery{Since: start, Reader: o.wideScope(), Limit: 1000})
	if err != nil {
		return fmt.Errorf("gap report: %w", err)
	}
	r.checkGapRecord(pathGapReport, "cita gaps", reportText(rep), reportCount(rep), asked)
	// A public channel's digest, posted through the adapter: its readers decide what it names.
	var digestStore bot.GapDigestStore = store
	if r.cfg.faults.digestIgnoresReaders {
		digestStore = wideDigest{Store: store, wide: o.wideScope()}
	}
	channel := public[r.rng.IntN(len(public))].id
	s.fake.expect(channel, pathGapDigest, "")
	before := len(s.fake.digests(channel))
	d := &bot.GapDigester{Store: digestStore, Posters: map[string]bot.GapDigestPoster{"slack": s.adapters[0]},
		Targets: []bot.DigestTarget{{Platform: "slack", Channel: channel}}, MaxBack: time.Since(start) + time.Second}
	d.Post(ctx, time.Now())
	digests := s.fake.digests(channel)
	text := strings.Join(digests[before:], "\n")
	r.checkGapRecord(pathGapDigest, channel, text, -1, asked)
	// Neither is a reply someone waits for: a digest whose channel's readers cannot be known
	// is not posted (fail closed), which is not a silence.
	r.count(pathGapReport, false, true, strings.Contains(reportText(rep), "GAPQ"))
	r.count(pathGapDigest, false, true, strings.Contains(text, "GAPQ"))
	return nil
}

// privateWithMembers picks a private channel with at least n of people in it, and those members
// in random order; nil when none has.
func (r *run) privateWithMembers(private []*slackChannel, people []*person, n int) (*slackChannel, []*person) {
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	for _, i := range r.rng.Perm(len(private)) {
		c := private[i]
		var members []*person
		for _, p := range people {
			if c.members[p.slackID] {
				members = append(members, p)
			}
		}
		if len(members) >= n {
			r.rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
			return c, members
		}
	}
	return nil, nil
}

// checkGapRecord records a leak for every private question's canary in text, and for a count
// above what the visible gap questions make (count < 0: not checked).
func (r *run) checkGapRecord(path, where, text string, count int, asked []gapAsked) {
	or := r.oracle
	or.mu.Lock()
	defer or.mu.Unlock()
	or.checked++
	visible := 0
	for _, q := range asked {
		if q.visible && q.gap {
			visible++
		}
		if !q.visible && strings.Contains(text, q.canary) {
			or.leaks = append(or.leaks, Leak{Path: path, Where: where, Reader: "the gap record's reader", Code: q.canary, Kind: "private question",
				Excerpt: excerpt(text, q.canary)})
		}
	}
	if count > visible {
		or.leaks = append(or.leaks, Leak{Path: path, Where: where, Reader: "the gap record's reader", Code: strconv.Itoa(count - visible),
			Kind: "count of private questions", Excerpt: fmt.Sprintf("%d questions counted, %d asked where everyone saw them or shared", count, visible)})
	}
}

// reportText is every question and document a report shows.
func reportText(rep []bot.GapTopic) string {
	var b strings.Builder
	for _, t := range rep {
		b.WriteString(strings.Join(t.Questions, "\n") + "\n" + strings.Join(t.Concepts, " ") + "\n")
		for _, d := range t.Nearest {
			b.WriteString(d.Title + "\n")
		}
	}
	return b.String()
}

// reportCount is how many questions a report counts.
func reportCount(rep []bot.GapTopic) int {
	n := 0
	for _, t := range rep {
		n += t.Asked
	}
	return n
}

// shareGap clicks "Tell the document owners" on answer id in channel as p, and waits for the
// ephemeral reply.
func (s *slackSide) shareGap(ctx context.Context, replica int, channel string, p *person, id int64) error {
	fin := s.fake.expect(channel, "gap share", "")
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": p.slackID, "team_id": "T1"}, "api_app_id": "A1",
		"container":  map[string]any{"type": "message", "message_ts": "1", "channel_id": channel},
		"trigger_id": "1.2.3", "team": map[string]any{"id": "T1"}, "channel": map[string]any{"id": channel},
		"message": map[string]any{"type": "message", "user": slackBot, "ts": "1"},
		"actions": []any{map[string]any{"action_id": "cita_share_gap", "block_id": "b", "value": strconv.FormatInt(id, 10),
			"type": "button", "action_ts": "1700000000.000400", "text": map[string]any{"type": "plain_text", "text": bot.ShareGapButton("en")}}},
	})
	if err := s.post(ctx, replica, "interactions", "application/x-www-form-urlencoded", []byte("payload="+url.QueryEscape(string(payload)))); err != nil {
		return err
	}
	s.wait(ctx, fin, channel, "")
	return nil
}

// digests returns the texts of the digests posted in channel so far.
func (f *fakeSlack) digests(channel string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.digestTexts[channel])
}
