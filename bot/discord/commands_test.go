package discord

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// TestRegisterCommandsHonoursRetryAfter: the bulk overwrites land at the right paths, and a
// 429 is retried after its retry_after.
func TestRegisterCommandsHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	a := newTestAdapter(t, f, nopHandler{}, func(o *Options) { o.GuildIDs = []string{"501", "502"} })
	paths := []string{"/api/v9/applications/1000/guilds/501/commands", "/api/v9/applications/1000/guilds/502/commands", "/api/v9/applications/1000/commands"}
	f.throttleOnce("PUT", paths[0], 0.3)
	if err := a.RegisterCommands(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := f.callsTo("PUT", "/applications/")
	if len(calls) != len(paths)+1 {
		t.Fatalf("%d PUTs, want %d (one retried after the 429)", len(calls), len(paths)+1)
	}
	if calls[0].Status != 429 || calls[1].Path != paths[0] {
		t.Fatalf("first PUT %s answered %d, then %s", calls[0].Path, calls[0].Status, calls[1].Path)
	}
	if gap := calls[1].At.Sub(calls[0].At); gap < 300*time.Millisecond {
		t.Errorf("retried after %s, before retry_after 300ms", gap)
	}
	for i, p := range paths {
		c := calls[i+1]
		var cmds []discordgo.ApplicationCommand
		if err := json.Unmarshal(c.Body, &cmds); err != nil || c.Path != p || len(cmds) != 1 || cmds[0].Name != "ask" ||
			len(cmds[0].Options) != 2 || !cmds[0].Options[0].Required {
			t.Errorf("PUT %s body %s (%v): want /ask with a required question", c.Path, c.Body, err)
		}
	}
}

// TestRegisterCommandsRemovesStaleOnes: at start the global /ask an earlier version registered
// for every guild is replaced by one usable only in the bot's DMs, and /ask is removed from a
// guild the bot is in that is no longer configured; configured guilds get /ask.
func TestRegisterCommandsRemovesStaleOnes(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	f.addGuild(&discordgo.Guild{ID: "900", Name: "Dropped"})
	f.addGuild(&discordgo.Guild{ID: "901", Name: "Never configured"})
	stale := `{"id":"1","application_id":"1000","name":"ask","description":"old","type":1}`
	f.setCommands("", stale)
	f.setCommands("900", stale)
	a := newTestAdapter(t, f, nopHandler{}, nil)
	if err := a.RegisterCommands(context.Background()); err != nil {
		t.Fatal(err)
	}
	global := f.commandsIn(t, "")
	if len(global) != 1 || global[0].Contexts == nil || len(*global[0].Contexts) != 1 || (*global[0].Contexts)[0] != discordgo.InteractionContextBotDM {
		t.Errorf("global commands %+v: want only /ask limited to the bot's DMs", global)
	}
	if got := f.commandsIn(t, guildID); len(got) != 1 || got[0].Name != "ask" {
		t.Errorf("commands in the configured guild %+v: want /ask", got)
	}
	if got := f.commandsIn(t, "900"); len(got) != 0 {
		t.Errorf("commands left in a guild that is no longer configured: %+v", got)
	}
	if n := len(f.callsTo("PUT", "/applications/1000/guilds/901/")); n != 0 {
		t.Errorf("%d overwrites in a guild that had no commands, want none", n)
	}
}

// TestGatewayInteractionDefersByCallback: on the gateway the deferral is a REST callback, sent
// before the answer edits the response.
func TestGatewayInteractionDefersByCallback(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	a := newTestAdapter(t, f, nopHandler{out: bot.Outgoing{Text: "Nothing found.", Lang: "en", Abstained: true}}, func(o *Options) {
		o.Mode = ModeGateway
	})
	var i discordgo.Interaction
	if err := json.Unmarshal(interaction{ID: "31", Token: "tok-31", Channel: chGeneral, User: userPlain, Question: "q?", Private: true}.JSON(t), &i); err != nil {
		t.Fatal(err)
	}
	a.onGatewayInteraction(&i)
	wait(a)
	callbacks := f.callsTo("POST", "/interactions/31/tok-31/callback")
	edits := f.callsTo("PATCH", "/webhooks/1000/tok-31/messages/@original")
	if len(callbacks) != 1 || len(edits) != 1 {
		t.Fatalf("%d callbacks and %d edits, want 1 and 1", len(callbacks), len(edits))
	}
	cb := callbacks[0].JSON(t)
	if cb["type"].(float64) != 5 || cb["data"].(map[string]any)["flags"].(float64) != float64(discordgo.MessageFlagsEphemeral) {
		t.Errorf("callback %s: want an ephemeral deferral", callbacks[0].Body)
	}
	if !edits[0].At.After(callbacks[0].At) {
		t.Error("the answer was edited before the deferral was sent")
	}
	if got := textOf(edits[0].JSON(t)); got != "> q?\nNothing found." {
		t.Errorf("edit %q", got)
	}
	if got := edits[0].JSON(t)["allowed_mentions"]; got == nil {
		t.Error("the answer may ping: allowed_mentions is unset")
	}
}

// TestAutoThreadOpensFromTheAnswer: with threads: auto a visible answer opens a thread named
// after the question, from the answer message, and greets it.
func TestAutoThreadOpensFromTheAnswer(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	h := nopHandler{out: bot.Outgoing{Text: "Yes [1].", Lang: "en", AnswerID: 9}}
	a := newTestAdapter(t, f, h, func(o *Options) { o.Threads = ThreadsAuto })
	post(t, a, interaction{ID: "41", Token: "tok-41", Channel: chGeneral, User: userPlain, Question: "Can I work remotely on Fridays?"}.JSON(t))
	wait(a)
	threads := f.callsTo("POST", "/channels/"+chGeneral+"/messages/"+originalID("41")+"/threads")
	if len(threads) != 1 || threads[0].JSON(t)["name"] != "Can I work remotely on Fridays?" {
		t.Fatalf("thread creations %v", threads)
	}
	if greet := f.callsTo("POST", "/channels/"+originalID("41")+"/messages"); len(greet) != 1 {
		t.Errorf("%d greetings in the thread, want 1", len(greet))
	}
	if !a.ownsThread(f.channel(originalID("41"))) {
		t.Error("the adapter does not own the thread it opened")
	}
	edit := f.callsTo("PATCH", "/webhooks/1000/tok-41/messages/@original")[0].JSON(t)
	if ids := customIDs(edit); len(ids) != 3 {
		t.Errorf("buttons %v: auto threads need no thread button", ids)
	}
}
