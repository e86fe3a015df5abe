package slack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	slackbot "github.com/citahq/cita/bot/slack"
)

// directoryFunc is a hand-written bot.Directory.
type directoryFunc func(ctx context.Context, email string) ([]string, error)

func (f directoryFunc) GroupsOf(ctx context.Context, email string) ([]string, error) {
	return f(ctx, email)
}

// TestIdentityGroupsReachDriveDocuments: with identity groups on, a Slack user's verified
// address, its domain and their Google Groups match the groups the Drive connector gives user,
// domain and group permissions, with no hand-written map; a guest gets no domain group.
func TestIdentityGroupsReachDriveDocuments(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *slackbot.Options) {
		o.Access = bot.NewAccessMap(nil, nil, nil, nil, []string{}) // no default groups, no maps
		o.Access.EmailGroups = true
		o.Access.Directory = directoryFunc(func(_ context.Context, email string) ([]string, error) {
			if email == "ana@example.com" {
				return []string{"eng@example.com"}, nil
			}
			return nil, nil
		})
	})
	b.fake.user(fakeUser{ID: "UGUEST", Email: "gus@example.com", Guest: true})
	// As the Drive connector writes them: a file shared with ana, one with the domain, one with a
	// Google Group.
	b.env.Add(t, bottest.Doc{Path: "ana.md", Title: "Ana's onboarding", Groups: []string{"ana@example.com"},
		Chunks: []string{"The onboarding buddy for Ana is the platypus team."}})
	b.env.Add(t, bottest.Doc{Path: "domain.md", Title: "Office hours", Groups: []string{"domain:example.com"},
		Chunks: []string{"The office opens at 8:30 and the quokka room is bookable."}})
	b.env.Add(t, bottest.Doc{Path: "eng.md", Title: "Deploy guide", Groups: []string{"eng@example.com"},
		Chunks: []string{"Deploys use the narwhal pipeline on Tuesdays."}})

	for _, tc := range []struct {
		user, channel, question, want string
		answered                      bool
	}{
		{"U1", "DANA1", "Who is the onboarding buddy for Ana?", "platypus", true},
		{"U1", "DANA2", "Which room is bookable at the office?", "quokka", true},
		{"U1", "DANA3", "Which pipeline do deploys use?", "narwhal", true},
		{"U2", "DBEN1", "Which pipeline do deploys use?", "narwhal", false},
		{"UGUEST", "DGUS1", "Which room is bookable at the office?", "quokka", false},
	} {
		b.postEvent(t, "message.json", event{EventID: "Ev" + tc.channel, Channel: tc.channel, User: tc.user, Text: tc.question,
			TS: "1700000002.000100", ChannelType: "im"}, nil)
		got := b.waitFinals(t, tc.channel, 1)[0].Form["blocks"]
		if strings.Contains(got, tc.want) != tc.answered {
			t.Errorf("%s asking %q: answered=%v, want %v: %s", tc.user, tc.question, !tc.answered, tc.answered, got)
		}
	}
}
