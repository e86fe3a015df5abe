package discord

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Limits of the HTTP interactions endpoint.
const (
	maxInteractionBody = 1 << 20
	// replayWindow bounds the age of a signed request: discordgo.VerifyInteraction checks only
	// the signature, so a captured request could otherwise be replayed forever.
	replayWindow = 5 * time.Minute
)

// HTTPHandler returns the interactions endpoint for http mode (mount it at Options.HTTPPath and give
// its public URL as the Interactions Endpoint URL in the Developer Portal). It answers 401 to a
// missing or forged signature or a timestamp outside the replay window, PONG to a PING, and to
// anything else its first response at once (a deferral for /ask), finishing the work in the
// background.
func (a *Adapter) HTTPHandler() http.Handler {
	return http.HandlerFunc(a.serveInteraction)
}

func (a *Adapter) serveInteraction(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	ctx := r.Context()
	received := a.now()
	if len(a.opts.PublicKey) == 0 {
		http.Error(w, "no public key is configured for the interactions endpoint", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxInteractionBody+1))
	if err != nil || len(body) > maxInteractionBody {
		http.Error(w, "body unreadable or too large", http.StatusRequestEntityTooLarge)
		return
	}
	if !a.freshTimestamp(r.Header.Get("X-Signature-Timestamp")) {
		a.logger.WarnContext(ctx, "discord interaction outside replay window", slog.String("remote_addr", r.RemoteAddr))
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !discordgo.VerifyInteraction(r, a.opts.PublicKey) {
		a.logger.WarnContext(ctx, "discord interaction with a bad signature", slog.String("remote_addr", r.RemoteAddr))
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		// Signed by Discord's key yet unreadable: a change of Discord's format, or a bug to see.
		a.logger.ErrorContext(ctx, "discord signed interaction is not readable JSON", slog.Int("bytes", len(body)), slog.Any("error", err))
		http.Error(w, "not an interaction", http.StatusBadRequest)
		return
	}
	resp, next := a.routeSafely(ctx, &i)
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		a.logger.ErrorContext(ctx, "discord write interaction response", slog.String("interaction_id", i.ID), slog.Any("error", err))
		return
	}
	if next != nil {
		// The work edits the response: it runs once this reply is on the wire, and retries its
		// first edit while Discord has not processed the reply yet.
		if err := http.NewResponseController(w).Flush(); err != nil {
			a.logger.DebugContext(ctx, "discord flush interaction response", slog.Any("error", err))
		}
		if resp.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource && i.Type == discordgo.InteractionApplicationCommand {
			a.trace("deferred", received)
		}
		a.goWork(next, a.interactionFailure(&i))
	}
}

// freshTimestamp reports whether ts (unix seconds) is within replayWindow of now.
func (a *Adapter) freshTimestamp(ts string) bool {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	age := a.now().Sub(time.Unix(sec, 0))
	return age < replayWindow && age > -replayWindow
}
