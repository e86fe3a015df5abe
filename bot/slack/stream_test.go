package slack_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	slackbot "github.com/citahq/cita/bot/slack"
)

// TestRefusedFinalStreamWritesAreNeverSilent: in an assistant thread, when Slack refuses both
// chat.stopStream and the chat.update that falls back from it, cita tries once more; when that
// is refused too, the thread shows a short error with no document text, never a stale or empty
// stream alone (as TestRefusedFinalWritesAreNeverSilent for a channel's placeholder).
func TestRefusedFinalStreamWritesAreNeverSilent(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		name    string
		refuse  int32 // how many final writes of the stream Slack refuses
		answers bool  // whether the answer ends shown
	}{
		{name: "the second attempt is shown", refuse: 2, answers: true},
		{name: "every attempt refused", refuse: 1 << 20, answers: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(o *slackbot.Options) { o.UpdateInterval = 50 * time.Millisecond })
			b.answerer.Inner = slowStreamer{inner: b.env.Pipeline, pause: 100 * time.Millisecond}
			dm := []string{"DR1", "DR2"}[i]
			thread := []string{"1700000005.000100", "1700000006.000100"}[i]
			var refused atomic.Int32
			b.fake.setHold(func(method string, form map[string]string) (time.Duration, string) {
				final := (method == "chat.stopStream" || method == "chat.update") && form["channel"] == dm
				if final && refused.Add(1) <= tc.refuse {
					return 0, "refuse"
				}
				return 0, ""
			})
			b.startAssistant(t, "EvR1"+dm, dm, "U1", thread)
			b.postEvent(t, "message.json", event{EventID: "EvR2" + dm, Channel: dm, User: "U1", Text: "How many vacation days do I get per year?",
				TS: strings.TrimSuffix(thread, "100") + "200", ThreadTS: thread, ChannelType: "im"}, nil)
			errorShown := func(s string) bool { return strings.Contains(s, "Something went wrong on my side") }
			if tc.answers {
				b.fake.waitFor("the stream stopped", 10*time.Second, func() bool { return len(b.fake.callsTo("chat.stopStream")) == 2 })
				b.settle(t) // no error follows
				if n := refused.Load(); n != 3 {
					t.Fatalf("%d final writes; want the stop and the update refused, then the stop of the second attempt", n)
				}
				if got := b.fake.shownWhere(dm, errorShown); len(got) > 0 {
					t.Fatalf("an error shown after the answer: %v", got)
				}
				return
			}
			b.fake.waitFor("a short error in the thread", 10*time.Second, func() bool { return len(b.fake.shownWhere(dm, errorShown)) > 0 })
			if n := refused.Load(); n != 4 {
				t.Fatalf("%d final writes refused; want 4 (the stop and the update, twice)", n)
			}
			for _, c := range b.fake.callsTo("chat.postMessage") {
				if c.Form["channel"] != dm {
					continue
				}
				if c.Form["thread_ts"] != thread || strings.Contains(c.Form["text"]+c.Form["blocks"], "vacation days") {
					t.Fatalf("error posted as %v; want a short error in the thread, with no document text", c.Form)
				}
			}
		})
	}
}
