package discord

import (
	"context"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// runSweep runs one sweep of adapter a on the shared database and fails unless it ran
// completely.
func runSweep(t *testing.T, e *e2e, a *Adapter) {
	t.Helper()
	s, err := bot.NewSweeper(e.env.Bot, "discord", a, bot.SweeperOptions{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := s.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("sweep: ran %v, %v; want a complete run", ran, err)
	}
}

// TestSweepWithdrawsAPermissionChangeInHTTPMode is item 4 of issue 22 on Discord: in http mode
// no event tells of a permission change, and nobody asks in #hr again. One sweep run sees
// userPlain let in and withdraws the hr answer, and the vacation answer too: it cites only the
// vacation policy, but its composer also read the hr salary passage (#hr's scope holds hr).
func TestSweepWithdrawsAPermissionChangeInHTTPMode(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, false, nil, nil)
	hr := a.interact(t, interaction{ID: "681", Token: "tok-681", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ})
	vac := a.interact(t, interaction{ID: "682", Token: "tok-682", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: vacationQ})
	if !hrLeak(hr) || hrLeak(vac) {
		t.Fatal("setup: want the salary answer from the hr document and the vacation answer without it")
	}
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	})
	if edits := e.fake.messageEdits(t, chHR, originalID("681")); len(edits) != 0 {
		t.Fatalf("setup: the hr answer was edited before any sweep: %v", edits)
	}
	runSweep(t, e, a.a)
	e.noticeShown(t, "the hr answer", chHR, originalID("681"))
	e.noticeShown(t, "the vacation answer, drawn from passages that include an hr one,", chHR, originalID("682"))
}

// TestSweepFailsClosedOnlyWhenTheViewersCannotBeKnown: a Discord 500 on #hr says nothing of
// its viewers: nothing is withdrawn and the run is incomplete (retried soon). Once #hr becomes
// an announcement channel, whose messages other servers can read, its answers are withdrawn.
func TestSweepFailsClosedOnlyWhenTheViewersCannotBeKnown(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, false, nil, nil)
	if hr := a.interact(t, interaction{ID: "683", Token: "tok-683", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(hr) {
		t.Fatal("setup: #hr was not answered from the hr document")
	}
	e.fake.failNext("GET", "/api/v9/channels/"+chHR, 1)
	s, err := bot.NewSweeper(e.env.Bot, "discord", a.a, bot.SweeperOptions{Every: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := s.RunOnce(context.Background()); !ran || err == nil {
		t.Fatalf("sweep during a Discord failure: ran %v, error %v; want an incomplete run", ran, err)
	}
	if edits := e.fake.messageEdits(t, chHR, originalID("683")); len(edits) != 0 {
		t.Fatalf("a passing failure withdrew the hr answer: %v", edits)
	}
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) { ch.Type = discordgo.ChannelTypeGuildNews })
	time.Sleep(1100 * time.Millisecond) // a failed run is retried after Every/5, at least 1s
	if ran, err := s.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("retry: ran %v, %v; want a complete run", ran, err)
	}
	e.noticeShown(t, "the hr answer", chHR, originalID("683"))
}
