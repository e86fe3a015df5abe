package slack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
)

// TestPinnedChannelsAreAnUpperBound: a channel pinned to hr (by name, resolved at start, or by
// id) answers from hr documents only, and never beyond what its readers may read.
func TestPinnedChannelsAreAnUpperBound(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.fake.channel("CPEOPLE", "UHR", "UBOT")
	a.fake.describe("CPEOPLE", fakeChannel{Name: "People-Ops"})
	a.fake.channel("CPINMIX", "UHR", "U1", "UBOT")
	b := a.replica(t, func(o *slackbot.Options) {
		o.ChannelGroups = map[string][]string{"#people-ops": {"hr"}, "CPINMIX": {"hr"}}
	})
	if got := b.mention(t, "EvN1", "CPEOPLE", "UHR", salaryQuestion).Form["blocks"]; !hrLeak(got) {
		t.Fatalf("the hr-pinned channel did not get the hr answer: %s", got)
	}
	b.mention(t, "EvN2", "CPEOPLE", "UHR", "How many vacation days do I get per year?")
	qs := b.answerer.Questions()
	if len(qs) != 2 || qs[0].Scope.String() != "hr" || qs[1].Scope.String() != "hr" {
		t.Fatalf("the pinned channel searched with %v, want hr only", qs)
	}
	if got := b.mention(t, "EvN3", "CPINMIX", "UHR", salaryQuestion).Form["blocks"]; !strings.Contains(got, "share no access group") {
		t.Fatalf("a channel pinned to hr with a reader outside hr: %s", got)
	}
	if n := len(b.answerer.Questions()); n != 2 {
		t.Fatalf("the pin widened the scope: the pipeline was asked %d times", n)
	}
}

func TestPinnedChannelNameMustResolveAtStart(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, err := slackbot.New(context.Background(), slackbot.Options{BotToken: "xoxb-test", SigningSecret: secret, APIURL: a.fake.APIURL(),
		Handler: bot.NewHandler(a.env.Pipeline, a.env.Bot, bot.HandlerOptions{}), Store: a.env.Bot,
		Access:        bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}),
		ChannelGroups: map[string][]string{"#no-such-channel": {"hr"}}})
	if err == nil || !strings.Contains(err.Error(), `slack.channel_groups["#no-such-channel"]`) {
		t.Fatalf("err = %v, want one naming slack.channel_groups[\"#no-such-channel\"]", err)
	}
}

// TestPinnedChannelIDMustExistAtStart is issue 22, item 9: a pin by an id Slack does not know
// (mistyped, lower-cased, or a channel the bot cannot see) never matched any channel, so the
// channel it meant was answered with wider groups; it now stops the start, naming the key.
func TestPinnedChannelIDMustExistAtStart(t *testing.T) {
	t.Parallel()
	a := setup(t)
	for _, id := range []string{"CNOSUCH", "chr"} {
		_, err := slackbot.New(context.Background(), slackbot.Options{BotToken: "xoxb-test", SigningSecret: secret, APIURL: a.fake.APIURL(),
			Handler: bot.NewHandler(a.env.Pipeline, a.env.Bot, bot.HandlerOptions{}), Store: a.env.Bot,
			Access:        bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}),
			ChannelGroups: map[string][]string{id: {"hr"}}})
		if err == nil || !strings.Contains(err.Error(), `slack.channel_groups["`+id+`"]`) {
			t.Fatalf("pin %s: err = %v, want one naming slack.channel_groups[%q]", id, err, id)
		}
	}
}
