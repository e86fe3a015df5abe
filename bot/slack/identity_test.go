package slack_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
)

// dm asks the bot in a direct message and returns the new final reply there.
func (b *bundle) dm(t *testing.T, eventID, channel, user, text string) call {
	t.Helper()
	n := len(b.finals(channel)) + 1
	b.postEvent(t, "message.json", event{EventID: eventID, Channel: channel, User: user, Text: text, TS: nextTS(), ChannelType: "im"}, nil)
	return b.waitFinals(t, channel, n)[n-1]
}

// withUserGroups maps the user group handle hr-team to hr.
func withUserGroups(o *slackbot.Options) {
	o.Access = bot.NewAccessMap(nil, map[string][]string{"hr-team": {"hr"}}, map[string][]string{"hr@example.com": {"hr"}},
		map[string][]string{"example.com": {"everyone"}}, nil)
}

// TestUserGroupChangeReachesEveryReplica: subteam_members_changed reaches one replica; the
// other must not keep the removed member's hr group.
func TestUserGroupChangeReachesEveryReplica(t *testing.T) {
	t.Parallel()
	a := setup(t, withUserGroups)
	b := a.replica(t, withUserGroups)
	a.fake.user(fakeUser{ID: "UG", Email: "gina@example.com"})
	a.fake.userGroup("S0HR", "hr-team", "UG")
	if got := b.dm(t, "EvG1", "DUG", "UG", salaryQuestion).Form["blocks"]; !hrLeak(got) {
		t.Fatalf("a member of @hr-team did not get the hr answer (the test would prove nothing):\n%s", got)
	}
	a.fake.userGroup("S0HR", "hr-team")
	a.postEvent(t, "subteam_members_changed.json", event{EventID: "EvG2", Subteam: "S0HR", User: "UG", TS: nextTS()}, nil)
	a.settle(t)                                                                                                            // replica A handles it first
	b.postEvent(t, "subteam_members_changed.json", event{EventID: "EvG2", Subteam: "S0HR", User: "UG", TS: nextTS()}, nil) // a duplicate
	b.settle(t)
	if got := b.dm(t, "EvG3", "DUG", "UG", salaryQuestion).Form["blocks"]; hrLeak(got) {
		t.Fatalf("replica B still answered from hr after the member left @hr-team (the event went to replica A):\n%s", got)
	}
}

// TestUserChangeReachesEveryReplica: user_change (here an e-mail change that drops the hr
// mapping) reaches one replica; the other must see it at its next question.
func TestUserChangeReachesEveryReplica(t *testing.T) {
	t.Parallel()
	a := setup(t)
	b := a.replica(t)
	if got := b.dm(t, "EvU1", "DHR", "UHR", salaryQuestion).Form["blocks"]; !hrLeak(got) {
		t.Fatalf("UHR did not get the hr answer (the test would prove nothing):\n%s", got)
	}
	a.fake.user(fakeUser{ID: "UHR", Email: "henry@example.com"})
	a.postEvent(t, "user_change.json", event{EventID: "EvU2", User: "UHR", Email: "henry@example.com", TS: nextTS()}, nil)
	a.settle(t)
	if got := b.dm(t, "EvU3", "DHR", "UHR", salaryQuestion).Form["blocks"]; hrLeak(got) {
		t.Fatalf("replica B still used the old e-mail's hr group after user_change reached replica A:\n%s", got)
	}
}

// TestLargeChannelIsResolvedInPagesNotPerMember is finding 10 of issue 12: one users.info call
// per member hits Slack's rate limits in large channels. 250 members must cost a few pages of
// users.list, whose 429 is waited out as Retry-After says.
func TestLargeChannelIsResolvedInPagesNotPerMember(t *testing.T) {
	t.Parallel()
	a := setup(t)
	members := []string{"UHR", "UBOT"}
	for i := range 250 {
		id := fmt.Sprintf("UM%03d", i)
		a.fake.user(fakeUser{ID: id, Email: strings.ToLower(id) + "@example.com"})
		members = append(members, id)
	}
	a.fake.channel("CBIG", members...)
	a.fake.throttleNext("users.list", 1)
	got := a.mention(t, "EvB1", "CBIG", "UHR", "How many vacation days do I get per year?").Form["blocks"]
	if !strings.Contains(got, "22") {
		t.Fatalf("large channel answer: %s", got)
	}
	if n := len(a.fake.callsTo("users.info")); n != 0 {
		t.Fatalf("%d users.info calls for a channel of 251 people, want 0 (users.list pages)", n)
	}
	lists := a.fake.callsTo("users.list")
	if pages := (256 + pageSize - 1) / pageSize; len(lists) > pages+1 {
		t.Fatalf("%d users.list calls, want at most %d pages and one retry", len(lists), pages+1)
	}
	if len(lists) < 2 || lists[1].At.Sub(lists[0].At) < time.Second {
		t.Fatalf("users.list retried too soon after a 429 with Retry-After: 1: %v", lists)
	}
	// The second question in the channel reuses the cached list.
	a.mention(t, "EvB2", "CBIG", "UHR", "Can I work remotely?")
	if n := len(a.fake.callsTo("users.list")); n != len(lists) {
		t.Fatalf("users.list called again (%d calls) with nothing changed", n)
	}
}

// TestStatusChangeDoesNotReloadTheWorkspace: Slack sends user_change for every profile edit;
// one that changes nothing access depends on must not make every replica list the workspace
// again (in a large workspace that would spend the users.list rate limit on status emoji).
func TestStatusChangeDoesNotReloadTheWorkspace(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.mention(t, "EvK1", "C1", "U1", "How many vacation days do I get per year?")
	lists := len(a.fake.callsTo("users.list"))
	if lists == 0 {
		t.Fatal("the public channel's answer did not list the workspace (the test would prove nothing)")
	}
	a.postEvent(t, "user_change.json", event{EventID: "EvK2", User: "U2", Email: "ben@example.com", Text: "on holiday", TS: nextTS()}, nil)
	a.settle(t)
	a.mention(t, "EvK3", "C1", "U1", "Can I work remotely?")
	if n := len(a.fake.callsTo("users.list")); n != lists {
		t.Fatalf("a status change made the replica list the workspace again (%d users.list calls, was %d)", n, lists)
	}
	// An e-mail change does.
	a.postEvent(t, "user_change.json", event{EventID: "EvK4", User: "U2", Email: "ben@partner.com", TS: nextTS()}, nil)
	a.settle(t)
	a.mention(t, "EvK5", "C1", "U1", "Can I work remotely?")
	if n := len(a.fake.callsTo("users.list")); n == lists {
		t.Fatal("an e-mail change did not make the replica list the workspace again")
	}
}

// TestNewWorkspaceMemberWithdrawsPublicAnswersTheyMayNotRead is item 5 of issue 29: a new full
// member of the workspace (team_join) reads every public channel without joining it. Answers
// there that used a document they may not read must be withdrawn at once, as a join would;
// before, team_join only made the replicas list the workspace again, and the answers stayed
// until the channel's next question or the sweep.
func TestNewWorkspaceMemberWithdrawsPublicAnswersTheyMayNotRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	public := b.mention(t, "EvTJ1", "C1", "U1", "How many vacation days do I get per year?")
	if !strings.Contains(public.Form["blocks"], "22 vacation days") {
		t.Fatalf("setup: the public channel's answer does not use the vacation policy: %s", public.Form["blocks"])
	}
	private := b.mention(t, "EvTJ2", "CHR", "UHR", salaryQuestion)
	b.settle(t)
	// Someone from another company's domain becomes a full member: mapped to no group.
	b.fake.user(fakeUser{ID: "UNEW", Email: "new@elsewhere.org"})
	b.postEvent(t, "team_join.json", event{EventID: "EvTJ3", User: "UNEW", Email: "new@elsewhere.org", TS: nextTS()}, nil)
	b.fake.waitFor("the public answer withdrawn", 10*time.Second, func() bool {
		for _, c := range b.fake.callsTo("chat.update") {
			if c.Form["channel"] == "C1" && c.Form["ts"] == public.Form["ts"] && isNotice(c) {
				return true
			}
		}
		return false
	})
	b.settle(t)
	if n := len(b.redactions("CHR", private.Form["ts"])); n != 0 {
		t.Fatalf("a private channel's answer was withdrawn for someone who does not read it (%d notices)", n)
	}
	// The next question there is answered for the new readers: they share no group.
	if got := b.mention(t, "EvTJ4", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]; !strings.Contains(got, "share no access group") {
		t.Fatalf("the public channel after a member with no group joined the workspace: %s", got)
	}
}
