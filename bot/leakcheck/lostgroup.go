package leakcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
)

// pathSlackLostGroup is a person coming back to their direct message with the bot after losing
// a group an earlier answer there used: a follow-up (whose memory must not draw on that answer)
// and "How I answered" on the earlier answer and on the follow-up's (their views must not show
// its passages, nor a query rewritten from it). Losing a group withdraws nothing in a direct
// message (its answers are private to the asker), so only the scope of the memory and of the
// view stands between them and the group's text. Its leaks are reported on the paths whose
// check failed: the follow-up's (memory) and "How I answered" (the view).
const pathSlackLostGroup = "slack after losing a group"

// Where a lost-group try's replies are checked (Leak.Try maps them to the follow-up and "How I
// answered").
const (
	lostGroupFollowUp    = pathSlackFollowUp + " (in a direct message, after losing a group)"
	lostGroupFollowUpWhy = pathSlackFollowUp + " (its how I answered, after losing a group)"
	lostGroupExplain     = pathSlackExplain + " (after losing a group)"
)

// dmAnswer is an answer in a person's direct message that cited a restricted document.
type dmAnswer struct {
	p       *person
	channel string
	th      slackThread
	text    string   // what the answer showed
	revoked []string // the groups its asker lost (revokeAnswered)
}

// recentDMAnswers is how many direct-message answers are kept for a later revoke.
const recentDMAnswers = 32

// rememberDM keeps an answer in p's direct message for revokeAnswered.
func (s *slackSide) rememberDM(p *person, channel string, f slackFinal, question string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dmAnswers = append(s.dmAnswers, dmAnswer{p: p, channel: channel, text: f.text,
		th: slackThread{ts: f.ts, answerID: f.answerID, question: question}})
	if len(s.dmAnswers) > recentDMAnswers {
		s.dmAnswers = s.dmAnswers[1:]
	}
}

// revokeAnswered takes from the asker of a recent direct-message answer every group by which
// they read a restricted document it showed, and plans their return there (pathSlackLostGroup).
// It returns the revokes (returnAfterLoss announces them).
func (r *run) revokeAnswered() []change {
	s := r.slack
	s.mu.Lock()
	answers := slices.Clone(s.dmAnswers)
	s.mu.Unlock()
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	for i := len(answers) - 1; i >= 0; i-- {
		a := answers[i]
		if a.p == r.org.people[0] {
			continue // the owner keeps every group
		}
		for _, c := range codePattern.FindAllString(a.text, -1) {
			info, ok := r.corpus.codes[strings.ToUpper(c)]
			if !ok || !info.doc.mayRead(a.p.groups) || slices.ContainsFunc(info.doc.groups, func(g string) bool { return !slices.Contains(r.org.groups, g) }) {
				continue // not held now, or readable through everyone or an identity group: nothing to lose
			}
			var out []change
			for _, g := range info.doc.groups {
				if a.p.groups[g] {
					delete(a.p.groups, g)
					delete(a.p.grantedAt, g)
					out = append(out, change{kind: "revoke", person: a.p, group: g})
				}
			}
			for _, c := range out {
				a.revoked = append(a.revoked, c.group)
			}
			s.mu.Lock()
			s.dmAnswers = slices.DeleteFunc(s.dmAnswers, func(d dmAnswer) bool { return d.th.answerID == a.th.answerID })
			s.lost = append(s.lost, a)
			s.mu.Unlock()
			return out
		}
	}
	return nil
}

// returnAfterLoss makes the asker of a recent direct-message answer lose its group
// (revokeAnswered) and takes them back there (pathSlackLostGroup), before the sweep that
// follows the churn: a sweep withdraws the answer, which then leaves the memory and the view by
// itself, so only a return in between (the sweep's interval, in production) tests their own
// scope checks. It waits until cita heard of every group change (Slack's roles version reaches
// heard, the churn's, plus its own): an event is handled after it is acknowledged, and a message
// that overtakes it is answered, rightly, with the groups cita knew. The groups are given back
// afterwards. It draws its own dice, not the run's: the rest of a seed's plan stays as it was.
func (r *run) returnAfterLoss(ctx context.Context, heard int64) error {
	revokes := r.revokeAnswered()
	if len(revokes) == 0 {
		return nil
	}
	if err := r.announceOwn(ctx, "revoke answered", revokes); err != nil {
		return err
	}
	heard += int64(len(revokes))
	deadline := time.Now().Add(settleWait)
	for {
		v, err := r.slackRolesVersion(ctx)
		if err != nil {
			return err
		}
		if v >= heard {
			break
		}
		if time.Now().After(deadline) {
			r.cfg.Logger.WarnContext(ctx, "leakcheck: cita did not hear of the group changes in time; no return after a lost group this round")
			return r.announceOwn(ctx, "regrant", r.regrant(r.slack.dropLost()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	var done []dmAnswer
	for {
		lost, ok := r.slack.takeLost()
		if !ok {
			return r.announceOwn(ctx, "regrant", r.regrant(done))
		}
		done = append(done, lost)
		rng := r.dice.draw("lost group/" + lost.channel)
		a := action{path: pathSlackLostGroup, replica: rng.IntN(len(r.reps)), channel: lost.channel, p: lost.p,
			text: r.corpus.followUp(rng), lost: lost}
		if err := r.do(ctx, a); err != nil {
			return err
		}
	}
}

// announceOwn tells the platforms of changes the run's rng did not plan, with dice of their own.
func (r *run) announceOwn(ctx context.Context, why string, changes []change) error {
	r.report.Changes += len(changes)
	if err := r.slack.announce(ctx, r.dice.draw(why), changes); err != nil {
		return err
	}
	return r.discord.announce(ctx, r.reps[0].store, changes)
}

// regrant gives the askers of answers back the groups revokeAnswered took, so that the returns
// do not drain the organisation's groups (churn grants as often as it revokes), and returns the
// changes for the platforms to hear of.
func (r *run) regrant(answers []dmAnswer) []change {
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	var out []change
	for _, a := range answers {
		for _, g := range a.revoked {
			if !a.p.groups[g] {
				a.p.groups[g] = true
				a.p.grantedAt[g] = time.Now()
				out = append(out, change{kind: "grant", person: a.p, group: g})
			}
		}
	}
	return out
}

// slackRolesVersion is the version of Slack's user groups every replica of cita caches under:
// each subteam event cita handled bumped it once.
func (r *run) slackRolesVersion(ctx context.Context) (int64, error) {
	st, err := r.reps[0].store.AudienceStates(ctx, "slack", "T1", bot.SubjectRoles)
	if err != nil {
		return 0, fmt.Errorf("leakcheck: read slack roles version: %w", err)
	}
	return st[0].Version, nil
}

// roleChanges counts the changes Slack announces with a subteam event.
func roleChanges(changes []change) int64 {
	var n int64
	for _, c := range changes {
		if c.kind == "grant" || c.kind == "revoke" {
			n++
		}
	}
	return n
}

// dropLost forgets the answers planned for a return, and returns them.
func (s *slackSide) dropLost() []dmAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.lost
	s.lost = nil
	return out
}

// takeLost returns a direct-message answer whose asker lost its group, once.
func (s *slackSide) takeLost() (dmAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lost) == 0 {
		return dmAnswer{}, false
	}
	a := s.lost[len(s.lost)-1]
	s.lost = s.lost[:len(s.lost)-1]
	return a, true
}

// lostGroup asks text as a follow-up in the direct message of a, whose asker lost the group of
// its answer, then clicks "How I answered" on that answer and on the follow-up's. It reports
// whether every reply came.
func (s *slackSide) lostGroup(ctx context.Context, replica int, a dmAnswer, text string) (bool, error) {
	// Every question of the direct message is the asker's own words, which its memory may quote.
	s.mu.Lock()
	key := a.channel + "/"
	s.questions[key] = append(s.questions[key], text)
	asked := slices.Clone(s.questions[key])
	s.mu.Unlock()
	s.oracle.ask(a.channel, asked...)
	ts := s.nextTS()
	fin := s.fake.expect(a.channel, lostGroupFollowUp, "")
	err := s.event(ctx, replica, map[string]any{"type": "message", "user": a.p.slackID, "text": text, "ts": ts,
		"channel": a.channel, "event_ts": ts, "channel_type": "im"})
	if err != nil {
		return false, err
	}
	f, ok := s.wait(ctx, fin, a.channel, ts)
	clicks := []struct {
		path string
		th   slackThread
	}{{lostGroupExplain, a.th}}
	if ok && f.answerID != 0 {
		clicks = append(clicks, struct {
			path string
			th   slackThread
		}{lostGroupFollowUpWhy, slackThread{ts: f.ts, answerID: f.answerID}})
	}
	for _, c := range clicks {
		clicked, _, err := s.click(ctx, replica, a.channel, c.th, a.p, c.path, asked)
		if err != nil {
			return false, err
		}
		ok = ok && clicked
	}
	return ok, nil
}
