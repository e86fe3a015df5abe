package slack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot/internal/bottest"
)

// "How I answered" on an answer served from the answer cache used to say "No passage matched"
// while the answer cited sources (the cache runs no search). It now says the answer came from
// the cache and lists the cited passages with their ranks in the first search.
func TestExplainOfACachedAnswerListsItsCitedPassages(t *testing.T) {
	t.Parallel()
	b := &bundle{env: bottest.New(t), fake: newFakeSlack(t), traces: map[string][]time.Duration{}}
	b.fake.user(fakeUser{ID: "U1", Email: "ana@example.com"})
	b.start(t, b.env.CachedPipeline())
	ask := func(id, channel, ts string) call {
		b.postEvent(t, "message.json", event{EventID: id, Channel: channel, User: "U1", Text: "How many vacation days do I get per year?",
			TS: ts, ChannelType: "im"}, nil)
		return b.waitFinals(t, channel, 1)[0]
	}
	first := ask("EvC1", "DC1", "1700000002.000100")
	second := ask("EvC2", "DC2", "1700000002.000200")
	if first.Form["text"] != second.Form["text"] {
		t.Fatalf("the second answer differs from the first; was it served from the cache?\n%s\n%s", first.Form["text"], second.Form["text"])
	}
	got := b.clickExplain(t, second, "U1", "DC2", "").Form["blocks"]
	if strings.Contains(got, "No passage matched") || !strings.Contains(got, "From the answer cache") || !strings.Contains(got, "full text #") {
		t.Fatalf("how I answered, for a cached answer: %s", got)
	}
}
