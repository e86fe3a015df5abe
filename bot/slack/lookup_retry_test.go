package slack_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
)

// flakyTurns is the real bot store whose thread lookup fails the first n times, as a database
// that drops a connection would.
type flakyTurns struct {
	bot.Store
	failures atomic.Int32
}

func (f *flakyTurns) HasTurns(ctx context.Context, conv bot.ConversationKey) (bool, error) {
	if f.failures.Add(-1) >= 0 {
		return false, errors.New("conn closed")
	}
	return f.Store.HasTurns(ctx, conv)
}

// TestFollowUpSurvivesAFailedThreadLookup: a follow-up in a thread cita answered is answered
// even when the database fails the first lookup of that thread.
func TestFollowUpSurvivesAFailedThreadLookup(t *testing.T) {
	t.Parallel()
	flaky := &flakyTurns{}
	b := setup(t, func(o *slackbot.Options) {
		flaky.Store = o.Store
		o.Store = flaky
	})
	root := "1700000000.000100"
	b.postEvent(t, "app_mention.json", event{EventID: "Ev1", Channel: "C1", User: "U1", Text: "<@UBOT> How many vacation days do I get per year?", TS: root}, nil)
	b.waitFinals(t, "C1", 1)
	flaky.failures.Store(1)
	b.postEvent(t, "message.json", event{EventID: "Ev2", Channel: "C1", User: "U2", Text: "Do unused vacation days carry over to next year?",
		TS: "1700000000.000200", ThreadTS: root, ChannelType: "channel"}, nil)
	if finals := b.waitFinals(t, "C1", 2); len(finals) != 2 {
		t.Fatalf("%d final replies, want the mention's and the follow-up's", len(finals))
	}
}
