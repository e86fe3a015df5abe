package push

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Path is where `cita serve` receives Drive notifications.
const Path = "/hooks/gdrive"

// Notified is told of a verified change notification for source, seen at at.
type Notified func(ctx context.Context, source string, at time.Time)

// Handler returns the POST /hooks/gdrive handler. A notification must name a live channel and
// carry its token (X-Goog-Channel-ID, X-Goog-Channel-Token); anything else is answered 403 and
// triggers nothing. The "sync" message Drive sends when a channel opens triggers nothing either.
// The body is empty in Drive's notifications and ignored.
func Handler(channels *Channels, notified Notified, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		id, token := r.Header.Get("X-Goog-Channel-ID"), r.Header.Get("X-Goog-Channel-Token")
		source, err := channels.Verify(r.Context(), id, token)
		if errors.Is(err, ErrUnknownChannel) {
			logger.WarnContext(r.Context(), "drive notification refused: unknown channel or wrong token", slog.String("channel_id", id))
			http.Error(w, "unknown channel", http.StatusForbidden)
			return
		}
		if err != nil {
			logger.ErrorContext(r.Context(), "drive notification", slog.String("error", err.Error()))
			http.Error(w, "try again", http.StatusServiceUnavailable) // Drive retries
			return
		}
		if r.Header.Get("X-Goog-Resource-State") != "sync" {
			notified(context.WithoutCancel(r.Context()), source, at)
		}
		w.WriteHeader(http.StatusOK)
	})
}
