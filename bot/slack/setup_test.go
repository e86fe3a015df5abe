package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/bot/slack/slackload"
)

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

type bundle struct {
	env      *bottest.Env
	fake     *fakeSlack
	adapter  *slackbot.Adapter
	answerer *bottest.Recorder
	http     *httptest.Server
	logs     *logBuffer

	mu     sync.Mutex
	traces map[string][]time.Duration
}

// setup wires a real store, pipeline and handler to an adapter talking to a fake Slack. The
// workspace: U1, U2 (example.com: everyone), UHR (hr@example.com: hr too), UEXT (a guest from
// partner.com: no group). Channels: C1 {U1,U2} is public; CHR {UHR}, CMIX {UHR,U1} and
// CEXT {U1,UEXT} are private; all hold the bot.
func setup(t *testing.T, tweak ...func(*slackbot.Options)) *bundle {
	t.Helper()
	b := &bundle{env: bottest.New(t), fake: newFakeSlack(t), traces: map[string][]time.Duration{}}
	for _, u := range []fakeUser{{ID: "U1", Email: "ana@example.com"}, {ID: "U2", Email: "ben@example.com"},
		{ID: "UHR", Email: "hr@example.com"}, {ID: "UEXT", Email: "contractor@partner.com", Guest: true}} {
		b.fake.user(u)
	}
	b.fake.channel("C1", "U1", "U2", "UBOT")
	b.fake.describe("C1", fakeChannel{Name: "general", Public: true})
	b.fake.channel("CHR", "UHR", "UBOT")
	b.fake.channel("CMIX", "UHR", "U1", "UBOT")
	b.fake.channel("CEXT", "U1", "UEXT", "UBOT")
	b.start(t, b.env.Pipeline, tweak...)
	return b
}

// replica is a second `cita serve` on the same database and the same Slack workspace: its own
// handler, adapter and caches, its own HTTP endpoint.
func (b *bundle) replica(t *testing.T, tweak ...func(*slackbot.Options)) *bundle {
	t.Helper()
	r := &bundle{env: b.env, fake: b.fake, traces: map[string][]time.Duration{}}
	r.start(t, b.env.Pipeline, tweak...)
	return r
}

// replicaWith is a second adapter on the same database and workspace answering with p (a
// pipeline with a chat model, say).
func (b *bundle) replicaWith(t *testing.T, p bot.Answerer, tweak ...func(*slackbot.Options)) *bundle {
	t.Helper()
	r := &bundle{env: b.env, fake: b.fake, traces: map[string][]time.Duration{}}
	r.start(t, p, tweak...)
	return r
}

// start wires a handler answering with inner (through a recorder) to a new adapter and serves
// its Events API endpoint.
func (b *bundle) start(t *testing.T, inner bot.Answerer, tweak ...func(*slackbot.Options)) {
	t.Helper()
	b.answerer = &bottest.Recorder{Inner: inner}
	b.logs = &logBuffer{t: t}
	logger := slog.New(slog.NewTextHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	opts := slackbot.Options{
		BotToken: "xoxb-test", AppToken: "xapp-test", SigningSecret: secret, APIURL: b.fake.APIURL(),
		Handler: bot.NewHandler(b.answerer, b.env.Bot, bot.HandlerOptions{Logger: logger, IndexEmpty: b.env.Bot.IndexEmpty}),
		Store:   b.env.Bot,
		Access: bot.NewAccessMap(nil, nil, map[string][]string{"hr@example.com": {"hr"}},
			map[string][]string{"example.com": {"everyone"}}, nil),
		Logger: logger,
		Trace: func(stage string, d time.Duration) {
			b.mu.Lock()
			b.traces[stage] = append(b.traces[stage], d)
			b.mu.Unlock()
		},
	}
	for _, f := range tweak {
		f(&opts)
	}
	a, err := slackbot.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	b.adapter = a
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	b.http = httptest.NewServer(a.HTTPHandler("/slack"))
	t.Cleanup(b.http.Close)
}

// logBuffer passes log lines to the test log and keeps them for assertions.
type logBuffer struct {
	t  *testing.T
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// event is the data of the payload templates in testdata.
type event struct {
	EventID, Team, Channel, User, Text, TS, ThreadTS, ChannelType, BotID, Email, Subteam string
	Edited                                                                               string // the edit's ts (app_mention)
}

func payload(t *testing.T, name string, data any) []byte {
	t.Helper()
	tmpl, err := template.ParseFiles("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) && strings.HasSuffix(name, ".json") {
		t.Fatalf("%s renders invalid JSON:\n%s", name, buf.String())
	}
	return buf.Bytes()
}

// post sends a signed request to the adapter's HTTP endpoint and returns the status and body.
func (b *bundle) post(t *testing.T, path, contentType string, body []byte, header http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.http.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	slackload.Sign(req.Header, body, secret, time.Now())
	for k, v := range header {
		req.Header[k] = v
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("%s acknowledged after %s; Slack needs 3 s", path, took)
	}
	return resp.StatusCode, out.String()
}

func (b *bundle) postEvent(t *testing.T, name string, ev event, header http.Header) int {
	t.Helper()
	if ev.Team == "" {
		ev.Team = "T1"
	}
	if strings.HasPrefix(ev.Channel, "D") && ev.User != "" && ev.User != "UBOT" {
		b.fake.imOnce(ev.Channel, ev.User) // a DM with the bot is its first writer's
	}
	code, _ := b.post(t, "/slack/events", "application/json", payload(t, name, ev), header)
	return code
}

// settle waits until b's adapter has handled every event posted to it (and whatever those
// started), instead of sleeping and hoping it did. It fails the test after a minute.
func (b *bundle) settle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.adapter.Idle(ctx); err != nil {
		t.Fatalf("the adapter is still busy after a minute: %v", err)
	}
}

// finals returns the chat.update and chat.postMessage calls in channel that carry blocks (final
// replies, not placeholders, streamed text or the notices that withdraw answers).
func (b *bundle) finals(channel string) []call {
	var out []call
	for _, m := range []string{"chat.update", "chat.postMessage"} {
		for _, c := range b.fake.callsTo(m) {
			if c.Form["channel"] == channel && c.Form["blocks"] != "" && !isNotice(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// isNotice reports whether a call withdraws an answer (the notice that replaces it).
func isNotice(c call) bool {
	return strings.Contains(c.Form["text"], "I withdrew this answer") || strings.Contains(c.Form["text"], "Retiré esta respuesta")
}

func (b *bundle) waitFinals(t *testing.T, channel string, n int) []call {
	t.Helper()
	b.fake.waitFor(fmt.Sprintf("%d final replies in %s", n, channel), 20*time.Second, func() bool { return len(b.finals(channel)) >= n })
	return b.finals(channel)
}

func (b *bundle) placeholders(channel string) []call {
	var out []call
	for _, c := range b.fake.callsTo("chat.postMessage") {
		if c.Form["channel"] == channel && c.Form["blocks"] == "" {
			out = append(out, c)
		}
	}
	return out
}

func (b *bundle) trace(stage string) []time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]time.Duration(nil), b.traces[stage]...)
}

// answerID reads the answer id from the buttons of a final reply.
func answerID(t *testing.T, c call) string {
	t.Helper()
	var blocks []map[string]any
	if err := json.Unmarshal([]byte(c.Form["blocks"]), &blocks); err != nil {
		t.Fatal(err)
	}
	for _, bl := range blocks {
		if bl["type"] == "actions" {
			return bl["elements"].([]any)[0].(map[string]any)["value"].(string)
		}
	}
	t.Fatalf("no buttons in %s", c.Form["blocks"])
	return ""
}

func urlEncode(s string) string { return url.QueryEscape(s) }
