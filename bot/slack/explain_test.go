package slack_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// clickExplain clicks "How I answered" on the answer of final as user, from channel and
// thread, and returns the ephemeral message user got back.
func (b *bundle) clickExplain(t *testing.T, final call, user, channel, thread string) call {
	t.Helper()
	before := len(b.ephemeralsTo(user))
	body := "payload=" + urlEncode(string(payload(t, "block_actions.json", map[string]string{
		"User": user, "Team": "T1", "Channel": channel, "MessageTS": final.Form["ts"], "ThreadTS": thread,
		"ActionID": "cita_explain", "Value": answerID(t, final)})))
	if code, _ := b.post(t, "/slack/interactions", "application/x-www-form-urlencoded", []byte(body), nil); code != http.StatusOK {
		t.Fatalf("interaction status %d", code)
	}
	b.fake.waitFor("an ephemeral reply to "+user, 10*time.Second, func() bool { return len(b.ephemeralsTo(user)) > before })
	return b.ephemeralsTo(user)[before]
}

func (b *bundle) ephemeralsTo(user string) []call {
	var out []call
	for _, c := range b.fake.callsTo("chat.postEphemeral") {
		if c.Form["user"] == user {
			out = append(out, c)
		}
	}
	return out
}

// TestExplainOnlyForWhoMayReadTheAnswer is the regression test of issue 12, finding 9 on Slack:
// "How I answered" was shown to whoever clicked from the answer's conversation, member or not,
// listed the headings of passages the answer did not cite, and kept showing after the cited
// documents' access narrowed.
func TestExplainOnlyForWhoMayReadTheAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	// A public-channel answer: UEXT (no access group) can open the channel and click.
	root := "1700000001.000100"
	b.postEvent(t, "app_mention.json", event{EventID: "EvX1", Channel: "C1", User: "U1", Text: "<@UBOT> How many vacation days do I get per year?", TS: root}, nil)
	final := b.waitFinals(t, "C1", 1)[0]
	if got := b.clickExplain(t, final, "UEXT", "C1", root); strings.Contains(got.Form["blocks"], "Searched for") || strings.Contains(got.Form["text"], "vacation") {
		t.Fatalf("a user with no access group saw the trace: %v", got.Form)
	}
	if got := b.clickExplain(t, final, "U2", "C1", root); !strings.Contains(got.Form["blocks"], "Searched for") {
		t.Fatalf("a member who may read the sources was refused: %v", got.Form)
	}

	// A DM answer to UHR: the trace names the cited source and no uncited passage, although
	// the search found readable ones.
	b.postEvent(t, "message.json", event{EventID: "EvX2", Channel: "DHR", User: "UHR", Text: "What is the base salary of band B7?",
		TS: "1700000001.000200", ChannelType: "im"}, nil)
	dm := b.waitFinals(t, "DHR", 1)[0]
	trace := b.clickExplain(t, dm, "UHR", "DHR", "").Form["blocks"]
	if !strings.Contains(trace, "Salary bands") {
		t.Fatalf("the trace does not name the cited source: %s", trace)
	}
	for _, uncited := range []string{"Vacation policy", "Remote work policy", "vacation.md", "remote.md"} {
		if strings.Contains(trace, uncited) {
			t.Errorf("the trace names the uncited passage %q: %s", uncited, trace)
		}
	}
	if !strings.Contains(trace, "not cited") {
		t.Errorf("the trace does not count the uncited passages: %s", trace)
	}

	// The cited document becomes hr-only: U2 may no longer read it, so no trace.
	if err := b.env.Index.SetGroups(ctx, "test", "vacation.md", []string{"hr"}); err != nil {
		t.Fatal(err)
	}
	if got := b.clickExplain(t, final, "U2", "C1", root); strings.Contains(got.Form["blocks"], "Searched for") {
		t.Fatalf("the trace was shown after its source became unreadable to the viewer: %v", got.Form)
	}
}

// TestExplainOfADirectMessageOnlyForItsAsker is item 3 of issue 29: another hr member, sending a
// click on "How I answered" with a DM answer's id and the DM's channel, was shown the trace,
// the asker's private question included. Slack would not send such a click itself; the store
// (the answer is visible to its asker only) and the click handler (the clicker must be the
// DM's person) both refuse it now. Rating it is refused too.
func TestExplainOfADirectMessageOnlyForItsAsker(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) {
		o.Access = bot.NewAccessMap(nil, nil, map[string][]string{"hr@example.com": {"hr"}, "hr2@example.com": {"hr"}},
			map[string][]string{"example.com": {"everyone"}}, nil)
	})
	b.fake.user(fakeUser{ID: "UHR2", Email: "hr2@example.com"})
	b.fake.im("DHR", "UHR")
	const private = "What is the base salary of band B7 for my own contract?"
	dm := b.dm(t, "EvDX1", "DHR", "UHR", private)
	if got := b.clickExplain(t, dm, "UHR", "DHR", ""); !strings.Contains(got.Form["blocks"], "Searched for") {
		t.Fatalf("the asker was refused their own DM answer's trace (the test would prove nothing): %v", got.Form)
	}
	got := b.clickExplain(t, dm, "UHR2", "DHR", "")
	if shown := got.Form["text"] + got.Form["blocks"]; strings.Contains(shown, "Searched for") || strings.Contains(shown, "own contract") {
		t.Fatalf("another hr member was shown the trace of someone else's DM answer: %v", got.Form)
	}
	before := len(b.ephemeralsTo("UHR2"))
	b.click(t, dm, "UHR2", "cita_helpful")
	b.fake.waitFor("the rating's reply", 10*time.Second, func() bool { return len(b.ephemeralsTo("UHR2")) > before })
	if got := b.ephemeralsTo("UHR2")[before]; strings.Contains(got.Form["text"], "Thanks") {
		t.Fatalf("another member rated someone else's DM answer: %v", got.Form)
	}
	// The store refuses on its own too, whatever the handler let through.
	conv := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "DHR"}
	viewer := bot.Viewer{Conversation: conv, UserID: "UHR2", Scope: rag.MustScope("everyone", "hr")}
	if _, err := b.env.Bot.LoadTrace(context.Background(), mustInt(t, answerID(t, dm)), viewer); !errors.Is(err, bot.ErrNotVisible) {
		t.Fatalf("the store loaded someone else's DM answer's trace for another hr member: %v", err)
	}
	fb := bot.Feedback{AnswerID: mustInt(t, answerID(t, dm)), Conversation: conv, UserID: "UHR2", Rating: 1}
	if err := b.env.Bot.RecordFeedback(context.Background(), fb); !errors.Is(err, bot.ErrNotVisible) {
		t.Fatalf("the store recorded a rating of someone else's DM answer: %v", err)
	}
}
