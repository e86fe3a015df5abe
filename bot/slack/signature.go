package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// signatureWindow is how far a request's timestamp may be from now (Slack's replay guard).
const signatureWindow = 5 * time.Minute

// errBadSignature is returned for a missing, malformed, forged or stale signature.
var errBadSignature = errors.New("slack request signature is missing, invalid or stale")

// verifySignature checks Slack's v0 signature: HMAC-SHA256 of "v0:<timestamp>:<body>" with the
// signing secret, and a timestamp within five minutes of now. It is what slack.NewSecretsVerifier
// computes (the tests check they agree) with the clock made explicit, so that Slack's documented
// example from 2018 can be verified.
func verifySignature(h http.Header, body []byte, secret string, now time.Time) error {
	ts := h.Get("X-Slack-Request-Timestamp")
	sig := h.Get("X-Slack-Signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || secret == "" || !strings.HasPrefix(sig, "v0=") {
		return errBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > signatureWindow || d < -signatureWindow {
		return errBadSignature
	}
	want, err := hex.DecodeString(sig[len("v0="):])
	if err != nil {
		return errBadSignature
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + ts + ":"))
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), want) {
		return errBadSignature
	}
	return nil
}
