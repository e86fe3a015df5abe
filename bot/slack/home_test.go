package slack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/pgbot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// homeStore is the bot store with no sync history: the sources are named, never synced.
type homeStore struct{ *pgbot.Store }

func (h homeStore) OwnedSources(ctx context.Context, email string, reader rag.Scope) ([]bot.SourceHealth, error) {
	docs, err := h.OwnedDocuments(ctx, email, reader)
	var out []bot.SourceHealth
	for src, n := range docs {
		out = append(out, bot.SourceHealth{Source: src, Documents: n})
	}
	return out, err
}

// The App Home tab: everyone sees their own questions and what became of them; the owner of
// documents near a public gap sees it there, with their sources; nobody sees another's DM.
func TestAppHomeShowsOwnQuestionsAndOwnersGaps(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) { o.Home = homeStore{o.Store.(*pgbot.Store)} })
	ctx := context.Background()
	b.env.Add(t, bottest.Doc{Path: "office.md", Title: "Office guide", Groups: []string{"everyone"}, Owner: "Facilities <hr@example.com>",
		Chunks: []string{"The office opens at 8:00. Visitors sign in at reception; the office garage is for deliveries only."}})
	b.mention(t, "EvH1", "C1", "U1", "Can employees park in the office garage overnight?")
	b.dm(t, "EvH2", "DH1", "U2", "Can I park in the office garage HOMECANARY?")
	if _, err := b.env.Bot.AssignGapTopics(ctx, rag.NewTopicReader(nil, nil).Signature, 0); err != nil {
		t.Fatal(err)
	}
	open := func(id, user string) string {
		t.Helper()
		n := len(b.fake.callsTo("views.publish"))
		b.postEvent(t, "app_home_opened.json", event{EventID: id, Channel: "DHOME" + user, User: user, TS: nextTS()}, nil)
		b.fake.waitFor("the home tab published", 10e9, func() bool { return len(b.fake.callsTo("views.publish")) > n })
		calls := b.fake.callsTo("views.publish")
		c := calls[len(calls)-1]
		if c.Form["user_id"] != user {
			t.Fatalf("published for %q, want %q", c.Form["user_id"], user)
		}
		return c.Form["view"]
	}
	asker := open("EvH3", "U1")
	if !strings.Contains(asker, "Your recent questions") || !strings.Contains(asker, "park in the office garage overnight") ||
		!(strings.Contains(asker, "not found") || strings.Contains(asker, "unsure")) || strings.Contains(asker, "Gaps in your documents") {
		t.Errorf("U1's home: want their question marked not found or unsure, and no owner section:\n%s", asker)
	}
	owner := open("EvH4", "UHR")
	for _, want := range []string{"Gaps in your documents", "park in the office garage overnight", "Your sources", "test"} {
		if !strings.Contains(owner, want) {
			t.Errorf("the owner's home lacks %q:\n%s", want, owner)
		}
	}
	for _, view := range []string{asker, owner} {
		if strings.Contains(view, "HOMECANARY") {
			t.Errorf("a home shows U2's DM question:\n%s", view)
		}
	}
}

func TestNamesAddressWhole(t *testing.T) {
	for owner, want := range map[string]bool{
		"Facilities <hr@example.com>": true, "HR@Example.com": true, "hr@example.com, it@example.com": true,
		"thr@example.com": false, "hr@example.com.au": false, "": false,
	} {
		if got := slackbot.NamesAddress(owner, "hr@example.com"); got != want {
			t.Errorf("namesAddress(%q) = %v, want %v", owner, got, want)
		}
	}
}
