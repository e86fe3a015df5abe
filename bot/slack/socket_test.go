package slack_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

type envelope struct {
	EnvelopeID, Type, Payload string
	AcceptsResponse           bool
	Retry                     int
}

func TestSocketModeAcksAndAnswersOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.adapter.RunSocketMode(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("RunSocketMode: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("RunSocketMode did not return after cancel")
		}
	})
	var conn *websocket.Conn
	select {
	case conn = <-b.fake.sockets:
	case <-time.After(10 * time.Second):
		t.Fatalf("no socket mode connection; calls %v", b.fake.methods())
	}
	if len(b.fake.callsTo("apps.connections.open")) != 1 {
		t.Fatal("the client did not call apps.connections.open")
	}
	mention := string(payload(t, "app_mention.json", event{EventID: "EvS1", Team: "T1", Channel: "C1", User: "U1",
		Text: "<@UBOT> How many vacation days do I get per year?", TS: "1700000001.000100"}))
	send := func(id string, retry int) {
		env := payload(t, "socket_envelope.json", envelope{EnvelopeID: id, Type: "events_api", Payload: mention, Retry: retry})
		if err := conn.WriteMessage(websocket.TextMessage, env); err != nil {
			t.Fatal(err)
		}
	}
	sent := time.Now()
	send("env-1", 0)
	send("env-2", 1) // Slack redelivers the same event in a new envelope
	acked := map[string]bool{}
	for len(acked) < 2 {
		select {
		case ack := <-b.fake.acks:
			id, _ := ack["envelope_id"].(string)
			acked[id] = true
			if len(acked) == 1 {
				t.Logf("socket mode ack %.1f ms after the envelope was sent", float64(time.Since(sent).Microseconds())/1000)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("acks within 3 s: %v", acked)
		}
	}
	if !acked["env-1"] || !acked["env-2"] {
		t.Fatalf("acked %v, want env-1 and env-2", acked)
	}
	final := b.waitFinals(t, "C1", 1)[0]
	b.settle(t)
	if n := len(b.finals("C1")); n != 1 || !strings.Contains(final.Form["blocks"], "22") {
		t.Fatalf("%d finals (%s), want one answer", n, final.Form["blocks"])
	}
	if ph := b.trace("placeholder"); len(ph) != 1 || ph[0] > time.Second {
		t.Fatalf("placeholder trace %v", ph)
	}
}

func TestSocketModeSlashCommandAckCarriesThePlaceholder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.adapter.RunSocketMode(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	conn := <-b.fake.sockets
	cmd := `{"token":"x","team_id":"T1","team_domain":"example","channel_id":"C1","channel_name":"general","user_id":"U1","user_name":"ana","command":"/cita","text":"Can I work remotely?","response_url":"https://hooks.slack.com/commands/T1/1/x","trigger_id":"1.2.3"}`
	env := payload(t, "socket_envelope.json", envelope{EnvelopeID: "env-cmd", Type: "slash_commands", Payload: cmd, AcceptsResponse: true})
	if err := conn.WriteMessage(websocket.TextMessage, env); err != nil {
		t.Fatal(err)
	}
	select {
	case ack := <-b.fake.acks:
		p, _ := ack["payload"].(map[string]any)
		if ack["envelope_id"] != "env-cmd" || p["response_type"] != "ephemeral" || p["text"] != "Looking…" {
			t.Fatalf("ack %v", ack)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no ack")
	}
	b.fake.waitFor("the ephemeral answer", 10*time.Second, func() bool { return len(b.fake.callsTo("chat.postEphemeral")) == 1 })
	if c := b.fake.callsTo("chat.postEphemeral")[0]; !strings.Contains(c.Form["blocks"], "remotely") {
		t.Fatalf("answer %s", c.Form["blocks"])
	}
}
