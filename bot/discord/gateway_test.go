package discord

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/citahq/cita/bot"
)

// TestGatewayIdentifiesHeartbeatsResumesAndReconnects drives discordgo's gateway client
// against the loopback gateway: it identifies with the bot token and the intents cita needs,
// heartbeats at HELLO's interval with the last sequence number, resumes its session after a
// dropped connection (with the session id and sequence, no new IDENTIFY) and answers the /ask
// Discord replays on resume, and reconnects and resumes when the gateway sends RECONNECT.
func TestGatewayIdentifiesHeartbeatsResumesAndReconnects(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	f.gateway = gatewayOptions{heartbeatMS: 50, resumable: true}
	a := newTestAdapter(t, f, nopHandler{out: bot.Outgoing{Text: "Busy.", Lang: "en", Reason: bot.ReasonBusy}}, func(o *Options) {
		o.Mode = ModeGateway
		o.MessageContent = true
	})
	s1 := f.openGateway(t, a)

	s1.mu.Lock()
	token := s1.identify["token"]
	s1.mu.Unlock()
	intents := s1.intents()
	if token != "Bot test-token" {
		t.Errorf("IDENTIFY token %v, want the bot token", token)
	}
	if want := gatewayIntents(true, false); intents != want {
		t.Errorf("IDENTIFY intents %d, want %d", intents, want)
	}

	waitFor(t, "two heartbeats", func() bool { _, _, hb, _ := s1.state(); return len(hb) >= 2 })
	id, seq, hb, _ := s1.state()
	if last := hb[len(hb)-1]; last != float64(seq) {
		t.Errorf("heartbeat carried %v, want the last sequence number %d", last, seq)
	}

	// While the connection is down, someone runs /ask: Discord replays it on resume.
	var ask map[string]any
	_ = json.Unmarshal(interaction{ID: "901", Token: "tok-901", Channel: chGeneral, User: userPlain, Question: "vacation?"}.JSON(t), &ask)
	f.queueForResume(id, "INTERACTION_CREATE", ask)
	n := f.sessionCount()
	s1.drop()
	s2 := f.reconnected(t, n)
	_, _, _, resume := s2.state()
	if resume["session_id"] != id || resume["seq"] != float64(seq) || resume["token"] != "Bot test-token" {
		t.Errorf("RESUME %v, want session %s at sequence %d", resume, id, seq)
	}
	s2.mu.Lock()
	identified := s2.identify != nil
	s2.mu.Unlock()
	if identified {
		t.Error("the client identified anew instead of resuming")
	}
	// The answer's work starts after the deferral is sent: wait for its edit, then for the
	// work to end (waiting on the work alone raced with its start on a loaded machine).
	waitFor(t, "the replayed /ask answered", func() bool {
		return len(f.callsTo("PATCH", "/webhooks/1000/tok-901/messages/@original")) > 0
	})
	wait(a)
	if edits := f.callsTo("PATCH", "/webhooks/1000/tok-901/messages/@original"); len(edits) != 1 {
		t.Errorf("%d edits of the replayed /ask's response, want 1", len(edits))
	}

	s2.requestReconnect()
	s3 := f.reconnected(t, n+1)
	if _, _, _, r := s3.state(); r == nil || r["session_id"] != id {
		t.Errorf("after RECONNECT the client sent RESUME %v, want session %s", r, id)
	}
	// The resumed session still delivers events: a replayed /ask is not answered twice, a new one is.
	f.mu.Lock()
	live := f.byID[id]
	f.mu.Unlock()
	var again map[string]any
	_ = json.Unmarshal(interaction{ID: "902", Token: "tok-902", Channel: chGeneral, User: userPlain, Question: "remote?"}.JSON(t), &again)
	live.dispatch("INTERACTION_CREATE", again)
	waitFor(t, "an /ask after RECONNECT answered", func() bool {
		return len(f.callsTo("POST", "/interactions/902/tok-902/callback")) == 1
	})
	if got := len(f.callsTo("POST", fmt.Sprintf("/interactions/%s/", "901"))); got != 1 {
		t.Errorf("the replayed /ask was answered %d times", got)
	}
}
