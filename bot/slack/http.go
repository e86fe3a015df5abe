package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxBody bounds a Slack request body.
const maxBody = 1 << 20

// HTTPHandler returns the Events API endpoints under prefix ("/slack"): <prefix>/events (event
// subscriptions and url_verification), <prefix>/interactions (buttons) and <prefix>/commands
// (/cita). Every request must carry a valid signature less than five minutes old (else 401);
// accepted requests are answered at once and worked on in the background.
func (a *Adapter) HTTPHandler(prefix string) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+prefix+"/events", a.serveEvents)
	mux.HandleFunc("POST "+prefix+"/interactions", a.serveInteractions)
	mux.HandleFunc("POST "+prefix+"/commands", a.serveCommands)
	return mux
}

// verified reads the body and checks its signature, answering 401 itself when it fails.
func (a *Adapter) verified(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "bad request", http.StatusBadRequest)
		return nil, false
	}
	if err := verifySignature(r.Header, body, a.opts.SigningSecret, a.opts.Now()); err != nil {
		a.logger.WarnContext(r.Context(), "rejected slack request", slog.String("path", r.URL.Path), slog.String("remote_addr", r.RemoteAddr))
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// malformed logs a validly signed request whose body cita cannot read: Slack itself never sends
// one, so it is a bug or a replay of something else, worth a line.
func (a *Adapter) malformed(r *http.Request, msg string, err error) {
	attrs := []any{slog.String("path", r.URL.Path), slog.String("remote_addr", r.RemoteAddr)}
	if err != nil {
		attrs = append(attrs, slog.Any("error", err))
	}
	a.logger.WarnContext(r.Context(), msg, attrs...)
}

func (a *Adapter) serveEvents(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, ok := a.verified(w, r)
	if !ok {
		return
	}
	if !json.Valid(body) {
		a.malformed(r, "slack event is not JSON", nil)
		http.Error(w, "bad request: the body is not JSON", http.StatusBadRequest)
		return
	}
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil && ev.Type != slackevents.CallbackEvent {
		a.logger.WarnContext(r.Context(), "parse slack event", slog.Any("error", err))
		w.WriteHeader(http.StatusOK) // an event cita does not know; Slack must not retry it
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		if uv, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent); ok {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, uv.Challenge)
			return
		}
	case slackevents.CallbackEvent:
		cb, _ := ev.Data.(*slackevents.EventsAPICallbackEvent)
		eventID := ""
		if cb != nil {
			eventID = cb.EventID
		}
		if retry := r.Header.Get("X-Slack-Retry-Num"); retry != "" {
			a.logger.InfoContext(r.Context(), "slack event retry", slog.String("event_id", eventID), slog.String("retry_num", retry),
				slog.String("retry_reason", r.Header.Get("X-Slack-Retry-Reason")))
		}
		a.goWork(func(ctx context.Context) { a.handleEvent(ctx, eventID, ev, received) })
	}
	w.WriteHeader(http.StatusOK)
}

func (a *Adapter) serveInteractions(w http.ResponseWriter, r *http.Request) {
	body, ok := a.verified(w, r)
	if !ok {
		return
	}
	form, err := url.ParseQuery(string(body))
	var cb slack.InteractionCallback
	if err == nil {
		err = json.Unmarshal([]byte(form.Get("payload")), &cb)
	}
	if err != nil {
		a.malformed(r, "slack interaction payload is not JSON", err)
		http.Error(w, "bad payload", http.StatusBadRequest)
		return
	}
	a.goWork(func(ctx context.Context) { a.handleInteraction(ctx, cb) })
	w.WriteHeader(http.StatusOK)
}

func (a *Adapter) serveCommands(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, ok := a.verified(w, r)
	if !ok {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		a.malformed(r, "slack command is not a form", err)
		http.Error(w, "bad command", http.StatusBadRequest)
		return
	}
	a.goWork(func(ctx context.Context) { a.handleSlash(ctx, cmd, received) })
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a.slashAck())
}
