package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/internal/syncbuf"
)

// TestServeDrainsAndAHangingModelTimesOut runs `cita serve` (Slack over HTTP, a chat model that
// hangs, chat.timeout 1s): it prints its start-up line on stdout; on SIGTERM with an answer in
// flight, /readyz answers 503 (the listener stays open) and new events get 503 until the answer
// is written; the answer says the model timed out and quotes the documents offline.
func TestServeDrainsAndAHangingModelTimesOut(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs := indexedSchema(t, testDoc{path: "vacation.md", title: "Vacation policy", lang: "en", groups: []string{"everyone"},
		text: "Every employee gets 22 vacation days per year. Vacation requests need two weeks of notice."})

	model := fakeopenai.New(t)
	model.Delay(time.Minute) // hangs
	fake := slackload.NewFakeSlack()
	defer fake.Close()
	addr := closedPort(t)
	const secret = "drain-test-signing-secret"
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
listen: %s
chat:
  base_url: %s
  model: hanging
  timeout: 1500ms
slack:
  bot_token: xoxb-drain-test
  mode: http
  signing_secret: %s
  api_url: %s
`, cs, addr, model.URL, secret, fake.APIURL()))
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var stdout, stderr syncbuf.Buffer
	exited := make(chan int, 1)
	go func() { exited <- run(sctx, []string{"--config", path, "serve"}, &stdout, &stderr) }()
	base := "http://" + addr
	waitFor(t, "/healthz", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	port := addr[strings.LastIndex(addr, ":")+1:]
	if line := stdout.String(); !strings.Contains(line, "Slack in http mode at /slack/events; health at http://127.0.0.1:"+port+"/healthz") {
		t.Errorf("start-up line on stdout: %q", line)
	}

	postEvent := func(id string) int {
		body := []byte(`{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"` + id + `","event_time":1700000000,` +
			`"event":{"type":"app_mention","user":"U00001","text":"<@UBOT> How many vacation days do I get per year?","ts":"1700000000.000100",` +
			`"channel":"C00001","event_ts":"1700000000.000100","team":"T1"}}`)
		req, _ := http.NewRequest(http.MethodPost, base+"/slack/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		slackload.Sign(req.Header, body, secret, time.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("post event while serving: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := postEvent("EvDrain1"); code != http.StatusOK {
		t.Fatalf("event acknowledged with %d", code)
	}
	waitFor(t, "the model to be asked", func() bool { return len(model.Requests()) > 0 })

	stop() // SIGTERM with the answer in flight
	waitFor(t, "/readyz to say it drains", func() bool {
		code, body := get(t, base+"/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "shutting down")
	})
	if code := postEvent("EvDrain2"); code != http.StatusServiceUnavailable {
		t.Errorf("an event while draining: %d, want 503 so that Slack retries it elsewhere", code)
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not stop within the shutdown grace")
	}
	final := fake.FinalText("C00001")
	if !strings.Contains(final, "did not reply within 1.5s") || !strings.Contains(final, "22 vacation days") {
		t.Errorf("final reply %q, want the labelled offline answer", final)
	}
	if !strings.Contains(stderr.String(), "chat model timed out") {
		t.Errorf("no log line for the timeout:\n%s", stderr.String())
	}
}
