package leakcheck

import (
	"crypto/ed25519"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	discordbot "github.com/citahq/cita/bot/discord"
)

// TestDiscordEditBeforeTheWaitIsSeen: a replica that edits the deferred response before the
// harness starts waiting for it (a refusal needs no database, so it can) has replied. The fake
// took the wait's channel out of the interaction, and the harness then waited on a nil channel
// and reported a Discord reply that never came (about 1 run in 3 at 2,000 questions).
func TestDiscordEditBeforeTheWaitIsSeen(t *testing.T) {
	t.Parallel()
	o := &org{}
	or := newOracle(o, &corpus{codes: map[string]codeInfo{}})
	fake := newFakeDiscord(o, or, newDice(1))
	t.Cleanup(fake.close)
	// The replica edits the response, then answers the interaction with its deferral.
	replica := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i struct{ Token string }
		if err := json.NewDecoder(r.Body).Decode(&i); err != nil {
			t.Errorf("read interaction: %v", err)
		}
		req, _ := http.NewRequest(http.MethodPatch, fake.srv.URL+"/api/v9/webhooks/"+discordApp+"/"+i.Token+"/messages/@original",
			strings.NewReader(`{"content":"I can only answer members of this server."}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("edit the response: %v", err)
		} else {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":5}`)
	}))
	t.Cleanup(replica.Close)
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &discordSide{endpoints: newEndpoints[*discordbot.Adapter](2 * time.Second), fake: fake, org: o, oracle: or, key: key,
		logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	d.servers = []*httptest.Server{replica}
	_, ok, err := d.send(t.Context(), 0, &interactionInfo{path: pathDiscordDM, channel: "dm:1"}, map[string]any{"type": 2})
	if err != nil || !ok {
		t.Fatalf("a response edited before the wait: ok %v, err %v; want a reply", ok, err)
	}
}
