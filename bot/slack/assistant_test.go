package slack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// slowStreamer answers with the real pipeline but streams the text in three parts, pause
// apart, like a model writing.
type slowStreamer struct {
	inner bot.Answerer
	pause time.Duration
}

func (s slowStreamer) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	ans, err := s.inner.Answer(ctx, q, nil)
	if err != nil || onDelta == nil {
		return ans, err
	}
	text := ans.Text
	cuts := []int{0, len(text) / 3, 2 * len(text) / 3, len(text)}
	for i := 1; i < len(cuts); i++ {
		for cuts[i] < len(text) && text[cuts[i]]&0xC0 == 0x80 {
			cuts[i]++ // a cut on a rune boundary
		}
		if cuts[i] > cuts[i-1] {
			onDelta(text[cuts[i-1]:cuts[i]])
		}
		time.Sleep(s.pause)
	}
	return ans, nil
}

// startAssistant sends assistant_thread_started for user in DM channel, thread ts.
func (b *bundle) startAssistant(t *testing.T, id, channel, user, thread string) {
	t.Helper()
	b.fake.assistantThread(channel, thread)
	if code := b.postEvent(t, "assistant_thread_started.json", event{EventID: id, Channel: channel, User: user, ThreadTS: thread, TS: thread}, nil); code != http.StatusOK {
		t.Fatalf("assistant_thread_started: %d", code)
	}
}

func TestAssistantThreadStatusTitlePromptsAndNativeStream(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) {
		o.SuggestedPrompts = []string{"How many vacation days do I get?", "How do I deploy to production?"}
		o.UpdateInterval = 50 * time.Millisecond
	})
	b.answerer.Inner = slowStreamer{inner: b.env.Pipeline, pause: 150 * time.Millisecond}
	const dm, thread = "DA1", "1700000003.000100"
	b.startAssistant(t, "EvA1", dm, "U1", thread)
	b.fake.waitFor("suggested prompts", 10*time.Second, func() bool { return len(b.fake.callsTo("assistant.threads.setSuggestedPrompts")) == 1 })
	var prompts []map[string]string
	_ = json.Unmarshal([]byte(b.fake.callsTo("assistant.threads.setSuggestedPrompts")[0].Form["prompts"]), &prompts)
	if len(prompts) != 2 || prompts[0]["message"] != "How many vacation days do I get?" {
		t.Fatalf("suggested prompts %v, want the configured ones", prompts)
	}

	b.postEvent(t, "message.json", event{EventID: "EvA2", Channel: dm, User: "U1", Text: "How many vacation days do I get per year?",
		TS: "1700000003.000200", ThreadTS: thread, ChannelType: "im"}, nil)
	b.fake.waitFor("the stream to stop", 20*time.Second, func() bool { return len(b.fake.callsTo("chat.stopStream")) == 1 })

	status := b.fake.callsTo("assistant.threads.setStatus")
	start := b.fake.callsTo("chat.startStream")
	if len(status) == 0 || status[0].Form["status"] != "Searching the handbook…" || len(start) != 1 || status[0].At.After(start[0].At) {
		t.Fatalf("status %v then stream %v: want the status first", status, start)
	}
	if title := b.fake.callsTo("assistant.threads.setTitle"); len(title) != 1 || !strings.Contains(title[0].Form["title"], "vacation days") {
		t.Errorf("thread title %v", title)
	}
	if s := start[0].Form; s["thread_ts"] != thread || s["recipient_user_id"] != "U1" || s["recipient_team_id"] != "T1" {
		t.Errorf("startStream %v, want the thread and its recipient", s)
	}
	appends := b.fake.callsTo("chat.appendStream")
	if len(appends) == 0 {
		t.Error("the answer streamed in one piece; want appendStream while it was written")
	}
	var streamed strings.Builder
	streamed.WriteString(start[0].Form["markdown_text"])
	for _, c := range appends {
		streamed.WriteString(c.Form["markdown_text"])
	}
	stop := b.fake.callsTo("chat.stopStream")[0].Form
	streamed.WriteString(stop["markdown_text"])
	if !strings.Contains(streamed.String(), "22 vacation days") || !strings.Contains(stop["blocks"], `"feedback_buttons"`) || !strings.Contains(stop["blocks"], "cita_explain") {
		t.Fatalf("streamed %q, stop blocks %s: want the answer, then feedback buttons and How I answered", streamed.String(), stop["blocks"])
	}
	if ph := b.placeholders(dm); len(ph) != 0 {
		t.Errorf("a placeholder was posted in an assistant thread: %v", ph)
	}
	if d := b.trace("status"); len(d) != 1 || d[0] > time.Second {
		t.Errorf("status visible after %v, want under 1 s", d)
	}

	// 👍 through the feedback_buttons element.
	var blocks []map[string]any
	_ = json.Unmarshal([]byte(stop["blocks"]), &blocks)
	value := ""
	for _, bl := range blocks {
		if bl["type"] == "context_actions" {
			value = bl["elements"].([]any)[0].(map[string]any)["positive_button"].(map[string]any)["value"].(string)
		}
	}
	body := "payload=" + urlEncode(string(payload(t, "block_actions.json", map[string]string{
		"User": "U1", "Team": "T1", "Channel": dm, "MessageTS": start[0].Form["ts"], "ThreadTS": thread,
		"ActionID": "cita_feedback", "Value": value})))
	if code, _ := b.post(t, "/slack/interactions", "application/x-www-form-urlencoded", []byte(body), nil); code != http.StatusOK {
		t.Fatalf("feedback click: %d", code)
	}
	b.fake.waitFor("the thanks", 10*time.Second, func() bool {
		e := b.ephemeralsTo("U1")
		return len(e) > 0 && strings.Contains(e[len(e)-1].Form["text"], "Thanks")
	})
}

// Where Slack has no native streaming (older workspaces, GovSlack), the assistant thread's
// answer is a message updated in place, with the same buttons.
func TestAssistantThreadFallsBackToUpdatesWithoutStreaming(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.mu.Lock()
	b.fake.noStreaming = true
	b.fake.mu.Unlock()
	const dm, thread = "DA2", "1700000004.000100"
	b.startAssistant(t, "EvB1", dm, "U1", thread)
	b.postEvent(t, "message.json", event{EventID: "EvB2", Channel: dm, User: "U1", Text: "How many vacation days do I get per year?",
		TS: "1700000004.000200", ThreadTS: thread, ChannelType: "im"}, nil)
	final := b.waitFinals(t, dm, 1)[0]
	if !strings.Contains(final.Form["blocks"], "22 vacation days") || !strings.Contains(final.Form["blocks"], `"feedback_buttons"`) {
		t.Fatalf("fallback answer %s", final.Form["blocks"])
	}
	if len(b.fake.callsTo("assistant.threads.setStatus")) == 0 || len(b.fake.callsTo("chat.stopStream")) != 0 {
		t.Errorf("calls %v", b.fake.methods())
	}
}

// Without configured prompts, a new assistant thread suggests the questions asked in a public
// channel by two people or more, among those whose answers the user may read; someone mapped to
// no group gets none. What two people asked in their DMs, or in a private channel, is never
// suggested to anyone (issue 22, item 8: a DM about a harassing boss was offered word for word).
func TestAssistantSuggestsPopularQuestionsTheUserMayRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.mention(t, "EvPa", "C1", "U1", "How many vacation days do I get per year?")
	b.mention(t, "EvPb", "C1", "U2", "How many vacation days do I get per year?")
	for i, c := range []struct{ user, channel, text string }{
		{"U1", "DP1", "Do remote workers need the company VPN?"},
		{"U2", "DP2", "Do remote workers need the company VPN?"},
		{"U1", "CMIX", "Can I work remotely from another country?"},
		{"UHR", "CMIX", "Can I work remotely from another country?"},
	} {
		if strings.HasPrefix(c.channel, "D") {
			b.postEvent(t, "message.json", event{EventID: "EvPc" + string(rune('a'+i)), Channel: c.channel, User: c.user, Text: c.text,
				TS: nextTS(), ChannelType: "im"}, nil)
			if final := b.waitFinals(t, c.channel, 1)[0]; !strings.Contains(final.Form["blocks"], "remote") {
				t.Fatalf("setup: the DM question was not answered from the remote work policy: %s", final.Form["blocks"])
			}
			continue
		}
		if final := b.mention(t, "EvPc"+string(rune('a'+i)), c.channel, c.user, c.text); !strings.Contains(final.Form["blocks"], "emote") {
			t.Fatalf("setup: the private channel's question was not answered from the remote work policy: %s", final.Form["blocks"])
		}
	}
	b.startAssistant(t, "EvP9", "DP9", "U2", "1700000005.000900")
	b.fake.waitFor("suggested prompts", 10*time.Second, func() bool { return len(b.fake.callsTo("assistant.threads.setSuggestedPrompts")) == 1 })
	got := b.fake.callsTo("assistant.threads.setSuggestedPrompts")[0].Form["prompts"]
	if !strings.Contains(got, "vacation days") || strings.Contains(got, "VPN") || strings.Contains(got, "remotely") {
		t.Fatalf("suggested %s, want only the vacation question asked in #general, nothing asked in DMs or a private channel", got)
	}
	b.startAssistant(t, "EvP10", "DP10", "UEXT", "1700000005.001000")
	b.settle(t)
	if n := len(b.fake.callsTo("assistant.threads.setSuggestedPrompts")); n != 1 {
		t.Errorf("someone mapped to no group got suggestions (%d calls)", n)
	}
}
