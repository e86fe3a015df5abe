package discord

import (
	"bytes"
	"context"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
)

// captureHandler records slog records.
type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

// fromLibrary returns the messages logged with component=discordgo.
func (h *captureHandler) fromLibrary() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "component" && a.Value.String() == "discordgo" {
				out = append(out, r.Level.String()+" "+r.Message)
			}
			return true
		})
	}
	return out
}

// TestDiscordgoLogsGoThroughSlog drops a gateway connection: discordgo's warning about it is a
// slog record (component=discordgo), and nothing reaches the standard logger ("[DG1] …"),
// which would break a JSON log. Not parallel: it sets the process-wide loggers.
func TestDiscordgoLogsGoThroughSlog(t *testing.T) {
	var std bytes.Buffer
	log.SetOutput(&std)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	capture := &captureHandler{}
	SetLibraryLogger(slog.New(capture))
	t.Cleanup(func() { SetLibraryLogger(slog.New(slog.DiscardHandler)) })

	f := newFakeDiscord(t)
	seedGuild(f)
	a := newTestAdapter(t, f, nopHandler{}, func(o *Options) { o.Mode = ModeGateway })
	gw := f.openGateway(t, a)
	n := f.sessionCount()
	gw.drop()
	f.reconnected(t, n)
	waitFor(t, "discordgo's warning about the dropped connection", func() bool {
		for _, m := range capture.fromLibrary() {
			if strings.HasPrefix(m, "WARN ") && strings.Contains(m, "gateway") {
				return true
			}
		}
		return false
	})
	if strings.Contains(std.String(), "[DG") {
		t.Errorf("discordgo wrote to the standard logger: %q", std.String())
	}
}

// countingTransport counts the REST requests it sends.
type countingTransport struct {
	mu    sync.Mutex
	paths []string
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.paths = append(c.paths, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestAskReportsVisibleSteps: an /ask tells Options.Trace when the deferral and the answer
// became visible, and its REST calls go through Options.Transport (what /metrics times).
func TestAskReportsVisibleSteps(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	var mu sync.Mutex
	var steps []string
	transport := &countingTransport{}
	a := newTestAdapter(t, f, nopHandler{out: bot.Outgoing{Text: "Answer.", Lang: "en", Reason: bot.ReasonModelFailure}}, func(o *Options) {
		o.Transport = transport
		o.Trace = func(step string, _ time.Duration) { mu.Lock(); steps = append(steps, step); mu.Unlock() }
	})
	post(t, a, interaction{ID: "21", Token: "tok-21", Channel: chGeneral, User: userPlain, Question: "vacation?"}.JSON(t))
	wait(a)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(steps, ",") != "deferred,final" {
		t.Errorf("steps %v, want deferred then final", steps)
	}
	transport.mu.Lock()
	defer transport.mu.Unlock()
	if !strings.Contains(strings.Join(transport.paths, "\n"), "PATCH /api/v9/webhooks/1000/tok-21/messages/@original") {
		t.Errorf("the answer's edit did not go through the transport: %v", transport.paths)
	}
}
