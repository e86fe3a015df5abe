package discord

import (
	"context"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
)

// TestNoAnswerIsWrittenWhileAPermissionChangeIsRead is item 2 of issue 29 on Discord: replica B
// (http mode) is answering in #hr from the hr document when the Contractors role (no group) is
// made administrator, so its members come to see #hr. GUILD_ROLE_UPDATE reaches replica A, whose
// read of the guild's roles is slow. Before the fix B's answer was written meanwhile, and shown
// until A's check withdrew it; now the channel is in doubt from the moment A hears of the
// change, B's write waits, and the answer ends as the notice without its text ever shown.
func TestNoAnswerIsWrittenWhileAPermissionChangeIsRead(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	addContractors(e.fake)
	a := e.replica(t, true, nil, nil)
	// An earlier answer in #hr, so that #hr is a channel showing answers when the change comes.
	if edit := a.interact(t, interaction{ID: "561", Token: "tok-561", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("#hr was not answered from the hr document (the test would prove nothing)")
	}
	gate := bottest.NewGated(e.pipeline())
	b := e.replica(t, false, gate, nil)
	in := interaction{ID: "562", Token: "tok-562", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}
	go post(t, b.a, in.JSON(t))
	select {
	case <-gate.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("replica B never started answering")
	}
	reached, release := e.fake.blockNext("GET", "/api/v9/guilds/"+guildID)
	a.gw.dispatch("GUILD_ROLE_UPDATE", e.fake.editRole(guildID, roleContractors, func(r *discordgo.Role) {
		r.Permissions = int64(discordgo.PermissionAdministrator)
	}))
	select {
	case <-reached: // replica A is reading the roles, and Discord is slow to answer
	case <-time.After(10 * time.Second):
		t.Fatal("replica A never read the guild after the role change")
	}
	close(gate.Open)
	// B saves its answer and turns to writing it; give that write every chance to go out
	// before A knows who sees #hr now (a write made now is the leak).
	path := "/webhooks/1000/" + in.Token + "/messages/@original"
	waitUpTo(2*time.Second, func() bool { return len(e.fake.callsTo("PATCH", path)) > 0 })
	close(release)
	wait(b.a)
	for _, c := range e.fake.callsTo("PATCH", path) {
		if edit := c.JSON(t); hrLeak(edit) {
			t.Fatalf("replica B wrote the hr answer while #hr's viewers were being read: %q", textOf(edit))
		}
	}
	e.noticeShown(t, "replica B's answer", chHR, originalID(in.Token))
	st, err := e.env.Bot.AudienceStates(context.Background(), platform, guildID, bot.ChannelSubject(chHR))
	if err != nil || st[0].Doubt {
		t.Fatalf("#hr still in doubt after its viewers were read (%v)", err)
	}
}
