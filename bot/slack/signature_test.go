package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func TestSlackDocumentedSigningExample(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("CITA_SHARED_DIR")
	if dir == "" {
		t.Skip("CITA_SHARED_DIR is unset: Slack's documented signing example is not available")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "fixtures", "slack-signing-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct{ SigningSecret, Timestamp, Body, Signature string }
	if err := json.Unmarshal(raw, &struct {
		SigningSecret *string `json:"signing_secret"`
		Timestamp     *string `json:"timestamp"`
		Body          *string `json:"body"`
		Signature     *string `json:"signature"`
	}{&ex.SigningSecret, &ex.Timestamp, &ex.Body, &ex.Signature}); err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ex.Timestamp)
	h.Set("X-Slack-Signature", ex.Signature)
	sec, _ := strconv.ParseInt(ex.Timestamp, 10, 64)
	at := time.Unix(sec, 0)
	if err := verifySignature(h, []byte(ex.Body), ex.SigningSecret, at.Add(30*time.Second)); err != nil {
		t.Fatalf("Slack's documented example rejected: %v", err)
	}
	if err := verifySignature(h, []byte(ex.Body), ex.SigningSecret, at.Add(5*time.Minute+time.Second)); err == nil {
		t.Fatal("the example was accepted more than five minutes after its timestamp")
	}
	if err := verifySignature(h, []byte(ex.Body+"&x=1"), ex.SigningSecret, at); err == nil {
		t.Fatal("a changed body was accepted")
	}
}

// TestVerifySignatureAgreesWithSlackGo checks the explicit-clock verifier against
// slack.NewSecretsVerifier on fresh requests.
func TestVerifySignatureAgreesWithSlackGo(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t"
	body := []byte(`{"type":"event_callback","event_id":"Ev1"}`)
	signed := func(ts time.Time, key string, b []byte) http.Header {
		stamp := strconv.FormatInt(ts.Unix(), 10)
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write([]byte("v0:" + stamp + ":"))
		mac.Write(b)
		h := http.Header{}
		h.Set("X-Slack-Request-Timestamp", stamp)
		h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
		return h
	}
	// Each case signs at its age from the moment it runs: slack-go reads the clock itself, and a
	// parallel subtest may wait minutes for its turn on a loaded machine.
	tests := []struct {
		name string
		h    func(now time.Time) http.Header
		ok   bool
	}{
		{"valid", func(now time.Time) http.Header { return signed(now, secret, body) }, true},
		{"valid, 4 minutes old", func(now time.Time) http.Header { return signed(now.Add(-4*time.Minute), secret, body) }, true},
		{"stale", func(now time.Time) http.Header { return signed(now.Add(-6*time.Minute), secret, body) }, false},
		{"future", func(now time.Time) http.Header { return signed(now.Add(6*time.Minute), secret, body) }, false},
		{"wrong secret", func(now time.Time) http.Header { return signed(now, "other", body) }, false},
		{"other body", func(now time.Time) http.Header { return signed(now, secret, []byte("{}")) }, false},
		{"no headers", func(time.Time) http.Header { return http.Header{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := time.Now()
			h := tt.h(now)
			ours := verifySignature(h, body, secret, now) == nil
			sv, err := slack.NewSecretsVerifier(h, secret)
			theirs := err == nil
			if theirs {
				_, _ = sv.Write(body)
				theirs = sv.Ensure() == nil
			}
			if ours != tt.ok || theirs != tt.ok {
				t.Fatalf("ours=%v slack-go=%v, want %v", ours, theirs, tt.ok)
			}
		})
	}
}

func FuzzVerifySignature(f *testing.F) {
	f.Add("1531420618", "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503", []byte("token=x"))
	f.Add("", "", []byte(""))
	f.Add("99999999999999999999", "v0=zz", []byte("{}"))
	f.Fuzz(func(t *testing.T, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set("X-Slack-Request-Timestamp", ts)
		h.Set("X-Slack-Signature", sig)
		if verifySignature(h, body, "secret", time.Unix(1531420618, 0)) == nil {
			// Only a correct HMAC may pass.
			mac := hmac.New(sha256.New, []byte("secret"))
			mac.Write([]byte("v0:" + ts + ":"))
			mac.Write(body)
			if sig != "v0="+hex.EncodeToString(mac.Sum(nil)) {
				t.Fatalf("accepted a wrong signature %q", sig)
			}
		}
	})
}
