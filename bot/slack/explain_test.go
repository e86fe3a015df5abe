package slack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
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
