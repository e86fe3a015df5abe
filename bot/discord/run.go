package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/citahq/cita/config"
)

// shutdownGrace is how long Run lets answers in progress finish after ctx ends.
const shutdownGrace = 20 * time.Second

// Start registers /ask and, in gateway mode, connects to the gateway. In http mode the caller
// mounts HTTPHandler. It returns the registration or connection error.
func (a *Adapter) Start(ctx context.Context) error {
	if err := a.RegisterCommands(ctx); err != nil {
		return err
	}
	if a.cfg.Mode == config.DiscordModeGateway {
		return a.Open(ctx)
	}
	return nil
}

// Run is the Discord adapter's life for `cita serve`: it builds the adapter, registers /ask,
// connects the gateway (gateway mode) or mounts the interactions endpoint on mux at
// cfg.HTTPPath (http mode; mux is required then), and blocks until ctx ends, then lets answers in
// progress finish. It returns configuration, registration and gateway errors.
func Run(ctx context.Context, cfg config.DiscordConfig, handler Handler, mux *http.ServeMux, logger *slog.Logger) error {
	a, err := New(cfg, handler, logger)
	if err != nil {
		return err
	}
	if a.cfg.Mode == config.DiscordModeHTTP {
		if mux == nil {
			return errors.New("discord http mode: no HTTP server to mount the interactions endpoint on")
		}
		mux.Handle("POST "+a.cfg.HTTPPath, a.HTTPHandler())
	}
	if err := a.Start(ctx); err != nil {
		_ = a.Close(context.Background())
		return fmt.Errorf("start discord adapter: %w", err)
	}
	a.logger.InfoContext(ctx, "discord adapter running", slog.String("mode", a.cfg.Mode), slog.Int("guilds", len(a.cfg.GuildIDs)))
	<-ctx.Done()
	closeCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	return a.Close(closeCtx)
}
