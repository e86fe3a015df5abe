package slack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/slack/slackload"
)

func TestMentionInThreadGetsOneAnswerWithSources(t *testing.T) {
	t.Parallel()
	b := setup(t)
	code := b.postEvent(t, "app_mention.json", event{EventID: "Ev0001", Channel: "C1", User: "U1",
		Text: "<@UBOT> How many vacation days do I get per year?", TS: "1700000000.000200", ThreadTS: "1700000000.000100"}, nil)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	finals := b.waitFinals(t, "C1", 1)
	b.settle(t) // anything extra would show up now
	if n := len(b.finals("C1")); n != 1 {
		t.Fatalf("%d final replies, want exactly 1", n)
	}
	ph := b.placeholders("C1")
	if len(ph) != 1 || ph[0].Form["thread_ts"] != "1700000000.000100" || ph[0].Form["text"] != "Looking…" {
		t.Fatalf("placeholders %+v, want one in thread 1700000000.000100", ph)
	}
	final := finals[0]
	if final.Method != "chat.update" || final.Form["ts"] == "" {
		t.Fatalf("final reply %s %v, want the placeholder updated", final.Method, final.Form)
	}
	blocks := final.Form["blocks"]
	for _, want := range []string{"22", "Vacation policy", "https://docs.example.com/vacation.md", "updated 2025-03-04", "cita_helpful", "cita_explain"} {
		if !strings.Contains(blocks, want) {
			t.Errorf("final blocks lack %q:\n%s", want, blocks)
		}
	}
	if strings.Contains(blocks, "UBOT") {
		t.Errorf("the bot's mention reached the answer: %s", blocks)
	}
	first := b.trace("placeholder")
	if len(first) != 1 {
		t.Fatalf("placeholder traced %d times", len(first))
	}
	t.Logf("first visible response %.1f ms after the event reached cita; final answer %.1f ms",
		float64(first[0].Microseconds())/1000, float64(b.trace("final")[0].Microseconds())/1000)
	if first[0] > time.Second {
		t.Errorf("first visible response after %s, target < 1 s", first[0])
	}
}

func TestFollowUpWithoutMentionIsAnsweredWithHistory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := "1700000000.000100"
	b.postEvent(t, "app_mention.json", event{EventID: "Ev1", Channel: "C1", User: "U1", Text: "<@UBOT> How many vacation days do I get per year?", TS: root}, nil)
	b.waitFinals(t, "C1", 1)
	msg := func(id, user, text, thread, botID string) {
		b.postEvent(t, "message.json", event{EventID: id, Channel: "C1", User: user, Text: text, TS: "1700000000.0009" + id[len(id)-2:],
			ThreadTS: thread, ChannelType: "channel", BotID: botID}, nil)
	}
	// Not addressed to cita: another person mentioned, a bot, a thread cita never answered, a
	// top-level message.
	msg("Ev11", "U2", "<@U1> do unused vacation days carry over?", root, "")
	msg("Ev12", "U2", "do unused vacation days carry over?", root, "B9")
	msg("Ev13", "U2", "do unused vacation days carry over?", "1600000000.000001", "")
	msg("Ev14", "U2", "do unused vacation days carry over?", "", "")
	// The follow-up.
	msg("Ev15", "U2", "Do unused vacation days carry over to next year?", root, "")
	finals := b.waitFinals(t, "C1", 2)
	b.settle(t)
	if n := len(b.finals("C1")); n != 2 {
		t.Fatalf("%d final replies, want 2 (the mention and one follow-up)", n)
	}
	if !strings.Contains(finals[1].Form["blocks"], "carry over") {
		t.Errorf("follow-up answer: %s", finals[1].Form["blocks"])
	}
	qs := b.answerer.Questions()
	if len(qs) != 2 {
		t.Fatalf("pipeline asked %d times, want 2", len(qs))
	}
	if h := qs[1].History; len(h) != 2 || !strings.Contains(h[0].Text, "vacation days do I get") || h[1].Role != "assistant" {
		t.Fatalf("follow-up history %+v, want the first exchange", h)
	}
	if strings.Contains(qs[0].Text, "<@") {
		t.Errorf("mention not stripped: %q", qs[0].Text)
	}
}

func TestForgedOrStaleSignatureIsRejected(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := payload(t, "app_mention.json", event{EventID: "Ev2", Team: "T1", Channel: "C1", User: "U1", Text: "<@UBOT> vacation days?", TS: "1700000000.000300"})
	tests := []struct {
		name       string
		at         time.Time
		key        string
		tamper     bool
		wantStatus int
	}{
		{"forged with another secret", time.Now(), "not-the-secret", false, http.StatusUnauthorized},
		{"body changed after signing", time.Now(), secret, true, http.StatusUnauthorized},
		{"stale: six minutes old", time.Now().Add(-6 * time.Minute), secret, false, http.StatusUnauthorized},
		{"from the future", time.Now().Add(6 * time.Minute), secret, false, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := body
			if tt.tamper {
				sent = []byte(strings.Replace(string(body), "vacation", "salary", 1))
			}
			req, _ := http.NewRequest(http.MethodPost, b.http.URL+"/slack/events", strings.NewReader(string(sent)))
			slackload.Sign(req.Header, body, tt.key, tt.at)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
		})
	}
	b.settle(t)
	if n := len(b.fake.callsTo("chat.postMessage")) + len(b.fake.callsTo("users.info")); n != 0 {
		t.Fatalf("rejected requests caused %d Slack calls: %v", n, b.fake.methods())
	}
	// The same body, correctly signed now, is accepted: the rejections were about the signature.
	if code := b.postEvent(t, "app_mention.json", event{EventID: "Ev2", Channel: "C1", User: "U1", Text: "<@UBOT> vacation days?", TS: "1700000000.000300"}, nil); code != http.StatusOK {
		t.Fatalf("valid request: status %d", code)
	}
	b.waitFinals(t, "C1", 1)
}

func TestURLVerification(t *testing.T) {
	t.Parallel()
	b := setup(t)
	code, body := b.post(t, "/slack/events", "application/json", payload(t, "url_verification.json", nil), nil)
	if code != http.StatusOK || body != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Fatalf("status %d body %q, want the challenge", code, body)
	}
}

func TestRetriedEventIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := event{EventID: "Ev3", Channel: "C1", User: "U1", Text: "<@UBOT> Can I work remotely?", TS: "1700000000.000400"}
	b.postEvent(t, "app_mention.json", ev, nil)
	for i := 1; i <= 2; i++ {
		h := http.Header{"X-Slack-Retry-Num": {string(rune('0' + i))}, "X-Slack-Retry-Reason": {"http_timeout"}}
		if code := b.postEvent(t, "app_mention.json", ev, h); code != http.StatusOK {
			t.Fatalf("retry %d: status %d", i, code)
		}
	}
	b.waitFinals(t, "C1", 1)
	b.settle(t)
	if n, p := len(b.finals("C1")), len(b.placeholders("C1")); n != 1 || p != 1 {
		t.Fatalf("%d final replies and %d placeholders for one event delivered 3 times, want 1 and 1", n, p)
	}
}

func TestChannelScopeIsTheMembersIntersection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ask := func(id, channel, user string) {
		b.postEvent(t, "app_mention.json", event{EventID: id, Channel: channel, User: user,
			Text: "<@UBOT> What is the base salary of band B7?", TS: "1700000000.0005" + id[len(id)-2:]}, nil)
	}
	ask("Ev41", "CHR", "UHR")  // only HR in the channel: may cite the salary bands
	ask("Ev42", "CMIX", "UHR") // HR and a member without hr: may not
	ask("Ev43", "CEXT", "U1")  // a member with no group at all: no search
	hr := b.waitFinals(t, "CHR", 1)[0].Form["blocks"]
	mix := b.waitFinals(t, "CMIX", 1)[0].Form["blocks"]
	ext := b.waitFinals(t, "CEXT", 1)[0].Form["blocks"]
	if !strings.Contains(hr, "Salary bands") || !strings.Contains(hr, "5,440,000") {
		t.Fatalf("the HR-only channel did not get the salary band answer (the test would prove nothing):\n%s", hr)
	}
	if strings.Contains(mix, "Salary bands") || strings.Contains(mix, "5,440,000") || strings.Contains(mix, "salaries.md") {
		t.Fatalf("a channel with a member outside hr was shown an hr document:\n%s", mix)
	}
	if !strings.Contains(ext, "share no access group") || !strings.Contains(ext, "DM") {
		t.Fatalf("channel with an unmapped member: %s", ext)
	}
	for _, q := range b.answerer.Questions() {
		if q.Scope.String() != "everyone,hr" && q.Scope.String() != "everyone" {
			t.Errorf("searched with scope %q", q.Scope.String())
		}
	}
	if n := len(b.answerer.Questions()); n != 2 {
		t.Errorf("pipeline called %d times, want 2 (never for the channel without a common group)", n)
	}
	// UEXT joins CHR: its next answer loses hr (members are read at every answer).
	b.fake.channel("CHR", "UHR", "UEXT", "UBOT")
	b.postEvent(t, "member_joined_channel.json", event{EventID: "Ev44", Channel: "CHR", User: "UEXT", TS: "1700000000.000600"}, nil)
	b.settle(t)
	ask("Ev45", "CHR", "UHR")
	after := b.waitFinals(t, "CHR", 2)[1].Form["blocks"]
	if strings.Contains(after, "5,440,000") || !strings.Contains(after, "share no access group") {
		t.Fatalf("after an unmapped member joined, CHR got: %s", after)
	}
}

func TestDirectMessageUsesTheAskersGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postEvent(t, "message.json", event{EventID: "Ev5", Channel: "DHR", User: "UHR", Text: "What is the base salary of band B7?",
		TS: "1700000000.000700", ChannelType: "im"}, nil)
	final := b.waitFinals(t, "DHR", 1)[0]
	if !strings.Contains(final.Form["blocks"], "5,440,000") {
		t.Fatalf("DM answer to an hr member: %s", final.Form["blocks"])
	}
	if ph := b.placeholders("DHR"); len(ph) != 1 || ph[0].Form["thread_ts"] != "" {
		t.Fatalf("DM placeholder %+v, want one at top level", ph)
	}
	if len(b.fake.callsTo("conversations.members")) != 0 {
		t.Error("a DM looked up channel members")
	}
}

func TestButtonsRecordFeedbackAndExplain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root := "1700000000.000800"
	b.postEvent(t, "app_mention.json", event{EventID: "Ev6", Channel: "C1", User: "U1", Text: "<@UBOT> How many vacation days do I get per year?", TS: root}, nil)
	final := b.waitFinals(t, "C1", 1)[0]
	id := answerID(t, final)
	click := func(user, channel, action string) {
		body := "payload=" + urlEncode(string(payload(t, "block_actions.json", map[string]string{
			"User": user, "Team": "T1", "Channel": channel, "MessageTS": final.Form["ts"], "ThreadTS": root, "ActionID": action, "Value": id})))
		if code, _ := b.post(t, "/slack/interactions", "application/x-www-form-urlencoded", []byte(body), nil); code != http.StatusOK {
			t.Fatalf("interaction status %d", code)
		}
	}
	click("U2", "C1", "cita_helpful")
	click("U1", "C1", "cita_not_helpful")
	click("U1", "C1", "cita_explain")
	click("UEXT", "CEXT", "cita_helpful") // from a channel where the answer was never shown
	b.fake.waitFor("4 ephemeral replies", 10*time.Second, func() bool { return len(b.fake.callsTo("chat.postEphemeral")) >= 4 })
	answer := mustInt(t, id)
	sum, n, err := b.env.Bot.Ratings(context.Background(), answer)
	if err != nil || sum != 0 || n != 2 {
		t.Fatalf("ratings %d over %d (%v), want 0 over 2", sum, n, err)
	}
	var explained, refused bool
	for _, c := range b.fake.callsTo("chat.postEphemeral") {
		if c.Form["user"] == "U1" && strings.Contains(c.Form["blocks"], "Searched for") && strings.Contains(c.Form["blocks"], "full text #") {
			explained = true
			if c.Form["thread_ts"] != root {
				t.Errorf("explain posted outside the thread: %v", c.Form)
			}
		}
		if c.Form["user"] == "UEXT" && strings.Contains(c.Form["text"], "only rate answers you were shown") {
			refused = true
		}
	}
	if !explained || !refused {
		t.Fatalf("explained=%v refused=%v; ephemeral calls: %+v", explained, refused, b.fake.callsTo("chat.postEphemeral"))
	}
}

func TestSlashCommandAnswersEphemerallyWithTheAskersGroups(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := "token=x&team_id=T1&team_domain=example&channel_id=C1&channel_name=general&user_id=UHR&user_name=hr" +
		"&command=%2Fcita&text=What+is+the+base+salary+of+band+B7%3F&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fx&trigger_id=1.2.3"
	code, body := b.post(t, "/slack/commands", "application/x-www-form-urlencoded", []byte(form), nil)
	if code != http.StatusOK || !strings.Contains(body, `"response_type":"ephemeral"`) {
		t.Fatalf("ack %d %s, want an immediate ephemeral response", code, body)
	}
	b.fake.waitFor("the ephemeral answer", 10*time.Second, func() bool { return len(b.fake.callsTo("chat.postEphemeral")) == 1 })
	c := b.fake.callsTo("chat.postEphemeral")[0]
	if c.Form["user"] != "UHR" || c.Form["channel"] != "C1" || !strings.Contains(c.Form["blocks"], "5,440,000") {
		t.Fatalf("ephemeral answer %v", c.Form)
	}
	if len(b.fake.callsTo("chat.postMessage")) != 0 {
		t.Fatal("a slash command answer was posted to the channel")
	}
	if ok, _ := b.env.Bot.HasTurns(context.Background(), bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1"}); ok {
		t.Fatal("the ephemeral answer became channel memory")
	}
}

func TestThrottledFinalUpdateWaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.throttleNext("chat.update", 1)
	b.postEvent(t, "app_mention.json", event{EventID: "Ev7", Channel: "C1", User: "U1", Text: "<@UBOT> Can I work remotely?", TS: "1700000000.000900"}, nil)
	b.waitFinals(t, "C1", 2) // the throttled update and the one after Retry-After
	b.settle(t)
	updates := b.fake.callsTo("chat.update")
	if len(updates) != 2 {
		t.Fatalf("%d chat.update calls, want the throttled one and one more", len(updates))
	}
	if gap := updates[1].At.Sub(updates[0].At); gap < time.Second {
		t.Fatalf("retried %s after a 429 with Retry-After: 1", gap)
	}
	if n := len(b.fake.callsTo("chat.postMessage")); n != 1 {
		t.Fatalf("%d messages posted, want only the placeholder (updated in place)", n)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("answer id %q", s)
		}
		n = n*10 + int64(r-'0')
	}
	return n
}
