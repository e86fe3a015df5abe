package slack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestWrongAppTokenNamesTheField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.errorNext("apps.connections.open", "invalid_auth", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := b.adapter.RunSocketMode(ctx)
	if err == nil || !strings.Contains(err.Error(), "slack.app_token") || !strings.Contains(err.Error(), "invalid_auth") {
		t.Fatalf("RunSocketMode with a wrong app token: %v, want an error naming slack.app_token", err)
	}
}

// A validly signed request whose body cita cannot read is refused with 400 and logged, so a
// misconfigured proxy or a replay of something else does not vanish silently.
func TestMalformedSignedBodiesGet400AndALogLine(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct{ path, contentType, body, log string }{
		{"/slack/events", "application/json", "this is not json", "slack event is not JSON"},
		{"/slack/events", "application/json", `{"type":"event_callback","event":`, "slack event is not JSON"},
		{"/slack/interactions", "application/x-www-form-urlencoded", "payload=%7Bnot+json", "slack interaction payload is not JSON"},
	} {
		code, _ := b.post(t, c.path, c.contentType, []byte(c.body), nil)
		if code != http.StatusBadRequest {
			t.Errorf("%s %q: status %d, want 400", c.path, c.body, code)
		}
		if !strings.Contains(b.logs.String(), c.log) {
			t.Errorf("%s %q: no %q log line", c.path, c.body, c.log)
		}
	}
	// An event type cita does not know is still acknowledged, so Slack does not retry it.
	if code, _ := b.post(t, "/slack/events", "application/json", []byte(`{"type":"app_rate_limited","team_id":"T1"}`), nil); code != http.StatusOK {
		t.Errorf("an unknown event type: status %d, want 200", code)
	}
}
