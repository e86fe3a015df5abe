package pgbot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// Suggested questions: only those asked in a public channel by two people or more, only those
// whose answers cite documents the viewer may read (an hr question is never suggested to
// someone outside hr). What was asked in DMs, private channels or ephemeral replies is never
// suggested, however many asked it (issue 22, item 8).
func TestPopularQuestionsNeedTwoAskersAndReadableSources(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{RateLimit: bot.RateLimit{PerMinute: 600, Burst: 100}})
	hrScope := rag.MustScope("everyone", "hr")
	type where int
	const (
		dm where = iota
		private
		public
		ephemeral
	)
	ask := func(user, text string, scope rag.Scope, w where) {
		in := bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "D" + user},
			UserID: user, Text: text, Scope: scope, Audience: bot.AudiencePrivate}
		switch w {
		case private:
			in.Conversation.Channel, in.Audience = "GPRIV", bot.AudienceChannel
		case public:
			in.Conversation.Channel, in.Audience, in.Public = "CPUB", bot.AudienceChannel, true
		case ephemeral:
			in.Conversation.Channel, in.Ephemeral, in.Public = "CPUB", true, true
		}
		out := h.Handle(ctx, in, nil)
		if !out.FromPipeline() || out.Abstained {
			t.Fatalf("%s asking %q: %+v", user, text, out)
		}
	}
	// Asked in DMs, a private channel and ephemerally, by two or three people each.
	for _, u := range []string{"U1", "U2", "U3"} {
		ask(u, "Do remote workers need the company VPN?", rag.MustScope("everyone"), dm)
	}
	ask("U1", "Can I work remotely from another country?", rag.MustScope("everyone"), private)
	ask("U2", "Can I work remotely from another country?", rag.MustScope("everyone"), private)
	ask("U1", "How many sick days do I get?", rag.MustScope("everyone"), ephemeral)
	ask("U2", "How many sick days do I get?", rag.MustScope("everyone"), ephemeral)
	// Asked in public channels.
	ask("U1", "How many vacation days do I get per year?", rag.MustScope("everyone"), public)
	ask("U2", "how many vacation days do I get per year", rag.MustScope("everyone"), public)
	ask("U3", "How many vacation days do I get per year?", rag.MustScope("everyone"), public)
	ask("UHR1", "What is the base salary of band B7?", hrScope, public)
	ask("UHR2", "What is the base salary of band B7?", hrScope, public)
	ask("U1", "Can I take my laptop home?", rag.MustScope("everyone"), public) // one asker only

	got, err := env.Bot.PopularQuestions(ctx, "slack", "T1", rag.MustScope("everyone"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(strings.ToLower(got[0]), "vacation days") {
		t.Fatalf("suggested to everyone: %q, want only the vacation question", got)
	}
	got, _ = env.Bot.PopularQuestions(ctx, "slack", "T1", hrScope, 5)
	if len(got) != 2 || !strings.Contains(got[0], "vacation") || !strings.Contains(got[1], "B7") {
		t.Fatalf("suggested to hr: %q, want vacation (3 askers) then B7 (2)", got)
	}
	if got, _ := env.Bot.PopularQuestions(ctx, "slack", "T2", hrScope, 5); len(got) != 0 {
		t.Fatalf("another workspace got %q", got)
	}
	if _, err := env.Bot.PopularQuestions(ctx, "slack", "T1", rag.Scope{}, 5); err == nil {
		t.Fatal("an empty scope listed questions")
	}
}
