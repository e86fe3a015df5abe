package slack_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// The gap loop through the real adapter and the loopback Slack (issue 32): a question declined
// in a public thread is answered there once, one sync after the document that answers it is
// added; a thread whose audience may no longer read it gets nothing; a DM question nobody shared
// appears nowhere, and one its asker shares with the button is answered to the asker alone.
func TestGapFollowThroughOnSlack(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) { o.Gaps = o.Store.(bot.GapStore) })
	ctx := context.Background()
	b.fake.channel("C3", "U1", "UBOT")
	b.fake.describe("C3", fakeChannel{Name: "office", Public: true})
	const question = "Is there parking for employees at the office?"
	pub := b.mention(t, "EvG1", "C1", "U1", question)
	other := b.mention(t, "EvG2", "C3", "U1", "Where do employees park near the office?")
	for _, f := range []call{pub, other} {
		if !strings.Contains(f.Form["text"], "couldn't find") || strings.Contains(f.Form["blocks"], "cita_share_gap") {
			t.Fatalf("public gap reply %q: want a decline without the share button (a public question is in the record already)", f.Form["text"])
		}
	}
	dm := b.dm(t, "EvG3", "DG1", "U2", "Is there parking for employees DMCANARY?")
	if !strings.Contains(dm.Form["blocks"], "cita_share_gap") || !strings.Contains(dm.Form["blocks"], "document owners") {
		t.Fatalf("DM decline lacks the share button and who will see it: %s", dm.Form["blocks"])
	}
	shared := b.dm(t, "EvG4", "DG2", "U1", "Where can employees park at the office?")
	b.click(t, shared, "U2", "cita_share_gap") // not the asker
	b.click(t, shared, "U1", "cita_share_gap")
	b.settle(t)
	replies := map[string]bool{}
	for _, c := range b.ephemeralsTo("U1") {
		replies[c.Form["text"]] = true
	}
	if !replies[bot.ShareGapReply("en", nil)] {
		t.Fatalf("the asker was not told the question is shared: %v", replies)
	}
	grouped, err := b.env.Bot.AssignGapTopics(ctx, rag.NewTopicReader(nil, nil).Signature, 0)
	if err != nil || grouped != 3 {
		t.Fatalf("grouped %d, %v; want the two public questions and the shared one", grouped, err)
	}
	// C3 is now shared with another organisation: readers cita cannot list.
	b.fake.describe("C3", fakeChannel{Name: "office", Public: true, Shared: true})
	since := time.Now().Add(-time.Millisecond)
	b.env.Add(t, bottest.Doc{Path: "parking.md", Title: "Office parking", Groups: []string{"everyone"}, Chunks: []string{
		"Employees can park for free in the garage under the office: ask reception for a parking card. Employee parking spaces are on level -2.",
	}})
	follower := bot.NewGapFollower(b.env.Bot, b.env.Pipeline, map[string]bot.GapPoster{"slack": b.adapter}, nil)
	res, err := follower.Follow(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved != 2 {
		t.Fatalf("follow-through %+v, want C1's thread and U1's DM answered", res)
	}
	inThread := 0
	for _, c := range b.finals("C1") {
		if strings.Contains(c.Form["text"], "now answers") {
			inThread++
			if c.Form["thread_ts"] != pub.Form["thread_ts"] || !strings.Contains(c.Form["blocks"], "Office parking") || !strings.Contains(c.Form["text"], "[1]") {
				t.Errorf("follow-up %v: want a cited answer in the question's thread", c.Form)
			}
		}
	}
	if inThread != 1 {
		t.Errorf("%d follow-ups in C1, want 1", inThread)
	}
	for _, c := range b.finals("C3") {
		if strings.Contains(c.Form["text"], "now answers") {
			t.Errorf("C3, shared with readers cita cannot list, got the follow-up: %v", c.Form["text"])
		}
	}
	dms := 0
	for _, c := range b.finals("DG2") {
		if strings.Contains(c.Form["text"], "Our documentation now does") {
			dms++
		}
	}
	if dms != 1 {
		t.Errorf("%d follow-ups in U1's DM, want 1", dms)
	}
	for _, ch := range []string{"DG1", "DU2"} {
		for _, c := range b.finals(ch) {
			if strings.Contains(c.Form["text"], "now") {
				t.Errorf("the unshared DM question was followed up in %s: %v", ch, c.Form["text"])
			}
		}
	}
	// Once: the next sync posts nothing more.
	if res, err := follower.Follow(ctx, since); err != nil || res.Resolved != 0 {
		t.Fatalf("second pass %+v, %v", res, err)
	}
	rep, err := b.env.Bot.GapReport(ctx, bot.GapQuery{Reader: rag.MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range rep {
		if strings.Contains(strings.Join(tp.Questions, " "), "DMCANARY") {
			t.Errorf("the report shows the unshared DM question: %+v", tp)
		}
	}
}

// The digest goes to a channel once per scheduled run, whichever replica fires first, built for
// that channel's readers: the public question is there, the DM question nobody shared is not.
func TestGapDigestOnSlackOncePerRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.mention(t, "EvD1", "C1", "U1", "Is there parking for employees at the office?")
	b.dm(t, "EvD2", "DD1", "U2", "Is there employee parking DIGESTCANARY?")
	d := &bot.GapDigester{Store: b.env.Bot, Posters: map[string]bot.GapDigestPoster{"slack": b.adapter},
		Targets: []bot.DigestTarget{{Platform: "slack", Channel: "C1"}},
		Group: func(ctx context.Context) error {
			_, err := b.env.Bot.AssignGapTopics(ctx, rag.NewTopicReader(nil, nil).Signature, 0)
			return err
		}}
	slot := time.Now().Truncate(time.Minute)
	d.Post(ctx, slot)
	d.Post(ctx, slot) // another replica's scheduler, the same run
	var digests []string
	for _, c := range b.fake.callsTo("chat.postMessage") {
		if c.Form["channel"] == "C1" && strings.Contains(c.Form["text"], "Knowledge gaps since") {
			digests = append(digests, c.Form["text"])
		}
	}
	if len(digests) != 1 {
		t.Fatalf("%d digests posted, want 1", len(digests))
	}
	if !strings.Contains(digests[0], "parking for employees") || strings.Contains(digests[0], "DIGESTCANARY") {
		t.Errorf("digest %q: want the public question and never the DM one", digests[0])
	}
	// A channel a guest reads (CEXT: U1 and the guest UEXT): the guest could not read #general,
	// so the digest there counts the topic without its words.
	d.Targets = []bot.DigestTarget{{Platform: "slack", Channel: "CEXT"}}
	d.Post(ctx, slot)
	var guest string
	for _, c := range b.fake.callsTo("chat.postMessage") {
		if c.Form["channel"] == "CEXT" && strings.Contains(c.Form["text"], "Knowledge gaps since") {
			guest = c.Form["text"]
		}
	}
	if guest == "" || strings.Contains(guest, "parking") || !strings.Contains(guest, "topic ") {
		t.Errorf("digest where a guest reads %q: want the topic counted, no question's words", guest)
	}
}
