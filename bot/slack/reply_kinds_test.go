package slack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// hedging answers with inner and marks every answer that cites sources as hedged, as the
// pipeline does when the evidence falls in the uncertain band.
type hedging struct{ inner bot.Answerer }

func (h hedging) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	ans, err := h.inner.Answer(ctx, q, onDelta)
	if err == nil && !ans.Abstained && len(ans.Sources) > 0 {
		ans.Hedged = true
	}
	return ans, err
}

// hedgedUnder reports whether blocks (a Slack form's JSON) show a hedged reply as one: the
// warning line, then the sources, then How I answered.
func hedgedUnder(blocks string) bool {
	warning := strings.Index(blocks, "cita_hedged")
	sources := strings.Index(blocks, `"[1] `)
	explain := strings.Index(blocks, "cita_explain")
	return warning >= 0 && strings.Contains(blocks, "Not a sure answer") && sources > warning && explain > sources
}

// TestHedgedReplyIsFlaggedOnEverySlackPath: a hedged reply is shown differently from an answer
// (a warning line under its text), with its sources and the buttons of an answer, whichever way
// it reaches Slack: a thread reply written into its placeholder, a /cita reply, and a reply
// streamed natively into an assistant thread (whose stop carries the blocks under the text).
func TestHedgedReplyIsFlaggedOnEverySlackPath(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) { o.UpdateInterval = 50 * time.Millisecond })
	b.answerer.Inner = hedging{slowStreamer{inner: b.env.Pipeline, pause: 150 * time.Millisecond}}
	const question = "How many vacation days do I get per year?"

	thread := b.mention(t, "EvH1", "C1", "U1", question)
	if !hedgedUnder(thread.Form["blocks"]) {
		t.Errorf("thread reply: %s", thread.Form["blocks"])
	}

	form := "token=x&team_id=T1&team_domain=example&channel_id=C1&channel_name=general&user_id=U1&user_name=ana" +
		"&command=%2Fcita&text=How+many+vacation+days+do+I+get+per+year%3F&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fx&trigger_id=1.2.3"
	if code, _ := b.post(t, "/slack/commands", "application/x-www-form-urlencoded", []byte(form), nil); code != http.StatusOK {
		t.Fatalf("slash command: %d", code)
	}
	b.fake.waitFor("the /cita reply", 20*time.Second, func() bool { return len(b.fake.callsTo("chat.postEphemeral")) == 1 })
	if got := b.fake.callsTo("chat.postEphemeral")[0].Form["blocks"]; !hedgedUnder(got) {
		t.Errorf("/cita reply: %s", got)
	}

	b.startAssistant(t, "EvH2", "DH1", "U1", "1700000009.000100")
	b.postEvent(t, "message.json", event{EventID: "EvH3", Channel: "DH1", User: "U1", Text: question,
		TS: "1700000009.000200", ThreadTS: "1700000009.000100", ChannelType: "im"}, nil)
	b.fake.waitFor("the stream to stop", 20*time.Second, func() bool { return len(b.fake.callsTo("chat.stopStream")) == 1 })
	b.settle(t)
	if len(b.fake.callsTo("chat.startStream")) != 1 {
		t.Fatal("the assistant reply did not stream (the test would prove nothing about the stream's stop)")
	}
	if got := b.fake.callsTo("chat.stopStream")[0].Form["blocks"]; !hedgedUnder(got) || !strings.Contains(got, "feedback_buttons") {
		t.Errorf("streamed reply's stop: %s", got)
	}
}

// TestAnswersAreNotFlaggedAsHedged: the same question answered plainly carries no warning.
func TestAnswersAreNotFlaggedAsHedged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	got := b.mention(t, "EvH4", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]
	if strings.Contains(got, "cita_hedged") || strings.Contains(got, "Not a sure answer") || !strings.Contains(got, "cita_explain") {
		t.Fatalf("an answer rendered as hedged, or without its buttons: %s", got)
	}
}

// TestDisclaimerUnderAnswersOnly: slack.disclaimer is shown under every answer and hedged reply
// (a thread reply, /cita, a streamed reply), never under "I couldn't find this"; it is display
// only: not in the answer's record nor in the answer cache, so a cached answer shows the
// disclaimer of the replica that shows it.
func TestDisclaimerUnderAnswersOnly(t *testing.T) {
	t.Parallel()
	const disclaimer = "Generated from our handbook & policies: check the source before acting."
	base := setup(t)
	a := &bundle{env: base.env, fake: base.fake, traces: map[string][]time.Duration{}}
	a.start(t, base.env.CachedPipeline(), func(o *slackbot.Options) {
		o.Disclaimer, o.UpdateInterval = disclaimer, 50*time.Millisecond
	})
	shows := func(blocks string) bool {
		return strings.Contains(blocks, "cita_disclaimer") && strings.Contains(blocks, `Generated from our handbook \u0026amp; policies`) // escaped for mrkdwn
	}
	const question = "How many vacation days do I get per year?"

	answer := a.mention(t, "EvD1", "C1", "U1", question)
	if !shows(answer.Form["blocks"]) {
		t.Fatalf("no disclaimer under the answer: %s", answer.Form["blocks"])
	}
	if i, j := strings.Index(answer.Form["blocks"], "cita_disclaimer"), strings.Index(answer.Form["blocks"], "cita_answer_"); i > j {
		t.Errorf("the disclaimer is under the buttons: %s", answer.Form["blocks"])
	}
	notFound := a.mention(t, "EvD2", "C1", "U1", "What is the parking policy in our Tokyo office?")
	if !strings.Contains(notFound.Form["blocks"], "find this") || strings.Contains(notFound.Form["blocks"], "cita_disclaimer") {
		t.Errorf("\"not found\" reply (want no disclaimer): %s", notFound.Form["blocks"])
	}

	form := "token=x&team_id=T1&team_domain=example&channel_id=C1&channel_name=general&user_id=U1&user_name=ana" +
		"&command=%2Fcita&text=Can+I+work+remotely%3F&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fx&trigger_id=1.2.3"
	if code, _ := a.post(t, "/slack/commands", "application/x-www-form-urlencoded", []byte(form), nil); code != http.StatusOK {
		t.Fatalf("slash command: %d", code)
	}
	a.fake.waitFor("the /cita reply", 20*time.Second, func() bool { return len(a.fake.callsTo("chat.postEphemeral")) == 1 })
	if got := a.fake.callsTo("chat.postEphemeral")[0].Form["blocks"]; !shows(got) {
		t.Errorf("/cita reply: %s", got)
	}

	a.answerer.Inner = hedging{slowStreamer{inner: base.env.Pipeline, pause: 150 * time.Millisecond}}
	a.startAssistant(t, "EvD3", "DD1", "U2", "1700000019.000100") // U2: U1 has asked three times
	a.postEvent(t, "message.json", event{EventID: "EvD4", Channel: "DD1", User: "U2", Text: "Do remote workers need the company VPN?",
		TS: "1700000019.000200", ThreadTS: "1700000019.000100", ChannelType: "im"}, nil)
	a.fake.waitFor("the stream to stop", 20*time.Second, func() bool { return len(a.fake.callsTo("chat.stopStream")) == 1 })
	a.settle(t)
	if got := a.fake.callsTo("chat.stopStream")[0].Form["blocks"]; !shows(got) || !hedgedUnder(got) {
		t.Errorf("streamed hedged reply's stop: %s", got)
	}

	// Display only: not in the record, not in the cache. A replica with another disclaimer
	// serves the cached answer with its own.
	ctx := context.Background()
	rec, err := a.env.Bot.LoadAnswer(ctx, mustInt(t, answerID(t, answer)))
	if err != nil || rec.Text == "" || strings.Contains(rec.Text, "Generated from our handbook") {
		t.Fatalf("the answer's record: %q, %v", rec.Text, err)
	}
	var cached int
	if err := a.env.Pool.QueryRow(ctx, `SELECT count(*) FROM answer_cache WHERE answer::text LIKE '%Generated from our handbook%'`).Scan(&cached); err != nil {
		t.Fatal(err)
	}
	if cached != 0 {
		t.Fatalf("%d cached answers hold the disclaimer", cached)
	}
	b := &bundle{env: base.env, fake: base.fake, traces: map[string][]time.Duration{}}
	b.start(t, base.env.CachedPipeline(), func(o *slackbot.Options) { o.Disclaimer = "Another line." })
	again := b.mention(t, "EvD5", "C1", "U1", question)
	if rec, err := b.env.Bot.LoadAnswer(ctx, mustInt(t, answerID(t, again))); err != nil || !rec.Cached {
		t.Fatalf("the repeated question was not answered from the cache (the test would prove nothing): %+v, %v", rec, err)
	}
	if got := again.Form["blocks"]; !strings.Contains(got, "Another line.") || strings.Contains(got, "Generated from our handbook") {
		t.Errorf("the cached answer's disclaimer: %s", got)
	}
}
