package slack_test

import (
	"strings"
	"testing"
)

// A DM is never left unanswered, whatever the message's subtype: a file with a question is
// answered, a file alone or an edit gets a reason; a message nobody wrote to the bot (a join, an
// edit of the bot's own reply) gets nothing.
func TestEveryAddressedSubtypeGetsAnAnswerOrAReason(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct {
		name, payload, channel string
		ev                     event
		want                   string
	}{
		{"file with a question", "file_share.json", "DF1",
			event{User: "UHR", Text: "What is the base salary of band B7?", TS: "1700000000.000901"}, "5,440,000"},
		{"file alone", "file_share.json", "DF2",
			event{User: "U1", Text: "", TS: "1700000000.000902"}, "I can't read attached files"},
		{"edited question", "message_changed.json", "DF3",
			event{User: "U1", Text: "How many vacation days do I get?", Email: "How many vacation dyas?", TS: "1700000000.000903"}, "not edits"},
	}
	for i, c := range cases {
		c.ev.EventID, c.ev.Channel, c.ev.ChannelType = "EvSub"+string(rune('A'+i)), c.channel, "im"
		if code := b.postEvent(t, c.payload, c.ev, nil); code != 200 {
			t.Fatalf("%s: status %d", c.name, code)
		}
	}
	for _, c := range cases {
		final := b.waitFinals(t, c.channel, 1)[0]
		if !strings.Contains(final.Form["blocks"], c.want) {
			t.Errorf("%s: reply %s, want %q", c.name, final.Form["blocks"], c.want)
		}
	}
	// Not addressed: the bot's own edit, and an edit that keeps the text (an unfurl).
	b.postEvent(t, "message_changed.json", event{EventID: "EvSubX", Channel: "DF4", ChannelType: "im", User: "UBOT", BotID: "B1",
		Text: "the answer", Email: "Looking…", TS: "1700000000.000904"}, nil)
	b.postEvent(t, "message_changed.json", event{EventID: "EvSubY", Channel: "DF5", ChannelType: "im", User: "U1",
		Text: "same words", Email: "same words", TS: "1700000000.000905"}, nil)
	b.settle(t)
	if n := len(b.placeholders("DF4")) + len(b.placeholders("DF5")); n != 0 {
		t.Errorf("%d replies to messages not addressed to the bot", n)
	}
}
