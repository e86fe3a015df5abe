package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/syncbuf"
)

// fakeDiscordREST is a loopback fake of the Discord REST routes `cita serve` calls for one
// private /ask in http mode: command registration, the server's roles, and the edit of the
// deferred response.
func fakeDiscordREST(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	const api = "/api/v9"
	roles := `[{"id":"5","name":"@everyone","permissions":"1024"}]`
	mux.HandleFunc("PUT "+api+"/applications/{app}/commands", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "[]") })
	mux.HandleFunc("PUT "+api+"/applications/{app}/guilds/{g}/commands", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "[]") })
	mux.HandleFunc("GET "+api+"/users/@me/guilds", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `[{"id":"5","name":"Acme"}]`) })
	mux.HandleFunc("GET "+api+"/guilds/{g}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"5","name":"Acme","owner_id":"1","roles":`+roles+`}`)
	})
	mux.HandleFunc("GET "+api+"/guilds/{g}/roles", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, roles) })
	mux.HandleFunc("GET "+api+"/webhooks/{app}/{token}/messages/@original", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"900","channel_id":"6"}`)
	})
	mux.HandleFunc("PATCH "+api+"/webhooks/{app}/{token}/messages/@original", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"900","channel_id":"6"}`)
	})
	mux.HandleFunc("POST "+api+"/webhooks/{app}/{token}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"id":"901"}`) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, pattern := mux.Handler(r); pattern == "" {
			t.Logf("fake discord: no route for %s %s", r.Method, r.URL.Path)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestServeExposesDiscordTimings runs `cita serve` with Discord over HTTP against a loopback
// fake: a signed private /ask is deferred and answered, /metrics times the deferral and the
// answer (cita_reply_visible_seconds) and every REST call by route, with no interaction token in
// any label, the reconciliation sweep ran with its lag exported, and the JSON log holds no line
// of discordgo's own format.
func TestServeExposesDiscordTimings(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs := indexedSchema(t, testDoc{path: "vacation.md", title: "Vacation policy", lang: "en", groups: []string{"everyone"},
		text: "Every employee gets 22 vacation days per year."})

	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	fake := fakeDiscordREST(t)
	addr := closedPort(t)
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
listen: %s
discord:
  token: serve-test-token
  application_id: "1000"
  public_key: %s
  mode: http
  guild_ids: ["5"]
  api_base_url: %s
`, cs, addr, hex.EncodeToString(key.Public().(ed25519.PublicKey)), fake.URL))
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var stdout, stderr syncbuf.Buffer
	exited := make(chan int, 1)
	go func() { exited <- run(sctx, []string{"--config", path, "serve"}, &stdout, &stderr) }()
	base := "http://" + addr
	waitFor(t, "the interactions endpoint", func() bool {
		resp, err := http.Post(base+"/discord/interactions", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusUnauthorized
	})

	body := []byte(`{"id":"77","application_id":"1000","token":"secret-interaction-token","type":2,"channel_id":"6","guild_id":"5","version":1,` +
		`"member":{"user":{"id":"42","username":"u"},"roles":[],"permissions":"2147483647"},` +
		`"data":{"id":"1","name":"ask","type":1,"options":[{"name":"question","type":3,"value":"How many vacation days do I get per year?"},` +
		`{"name":"private","type":5,"value":true}]}}`)
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	req, _ := http.NewRequest(http.MethodPost, base+"/discord/interactions", bytes.NewReader(body))
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, append([]byte(stamp), body...))))
	req.Header.Set("X-Signature-Timestamp", stamp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(reply), `"type":5`) {
		t.Fatalf("/ask answered %s %s, want a deferral", resp.Status, reply)
	}

	var page string
	waitFor(t, "the Discord answer timed", func() bool {
		_, page = get(t, base+"/metrics")
		return strings.Contains(page, `cita_reply_visible_seconds_count{platform="discord",step="final"} 1`)
	})
	for _, want := range []string{
		`cita_reply_visible_seconds_count{platform="discord",step="deferred"} 1`,
		`cita_platform_request_duration_seconds_count{code="200",method="PATCH /webhooks/{id}/{token}/messages/@original",platform="discord"} 1`,
		`method="PUT /applications/{id}/guilds/{id}/commands",platform="discord"`,
		`cita_questions_total{outcome="answered",platform="discord"} 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The reconciliation sweep (on by default) ran at start, and its lag is exported.
	waitFor(t, "the Discord sweep", func() bool {
		_, page = get(t, base+"/metrics")
		return strings.Contains(page, `cita_sweep_runs_total{result="complete",sweep="discord"} 1`)
	})
	if !strings.Contains(page, `cita_sweep_lag_seconds{sweep="discord"}`) {
		t.Error("/metrics lacks the sweep's lag")
	}
	if strings.Contains(page, "secret-interaction-token") || strings.Contains(page, "serve-test-token") {
		t.Error("/metrics holds a token")
	}
	stop()
	select {
	case <-exited:
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not stop")
	}
	if strings.Contains(stderr.String(), "[DG") {
		t.Errorf("discordgo wrote its own log lines:\n%s", stderr.String())
	}
}
