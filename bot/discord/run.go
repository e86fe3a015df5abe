package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// shutdownGrace is how long Run lets answers in progress finish after ctx ends.
const shutdownGrace = 20 * time.Second

// Start registers /ask and, in gateway mode, connects to the gateway. In http mode the caller
// mounts HTTPHandler. It returns the registration or connection error.
func (a *Adapter) Start(ctx context.Context) error {
	if err := a.RegisterCommands(ctx); err != nil {
		return err
	}
	if a.opts.Mode == ModeGateway {
		return a.Open(ctx)
	}
	return nil
}

// Run is the Discord adapter's life for `cita serve`: it builds the adapter, registers /ask,
// connects the gateway (gateway mode) or mounts the interactions endpoint on mux at
// opts.HTTPPath (http mode; mux is required then), and blocks until ctx ends, then lets answers
// in progress finish. It returns option, registration and gateway errors.
func Run(ctx context.Context, opts Options, mux *http.ServeMux) error {
	a, err := New(opts)
	if err != nil {
		return err
	}
	return a.Serve(ctx, mux)
}

// Serve is Run for an adapter built with New (so that the caller can also use it, to post
// source-change notices say). It returns registration and gateway errors.
func (a *Adapter) Serve(ctx context.Context, mux *http.ServeMux) error {
	if a.opts.Mode == ModeHTTP {
		if mux == nil {
			return errors.New("discord http mode: no HTTP server to mount the interactions endpoint on")
		}
		mux.Handle("POST "+a.opts.HTTPPath, a.HTTPHandler())
	}
	if err := a.Start(ctx); err != nil {
		_ = a.Close(context.Background())
		return fmt.Errorf("start discord adapter: %w", err)
	}
	a.logger.InfoContext(ctx, "discord adapter running", slog.String("mode", a.opts.Mode), slog.Int("guilds", len(a.opts.GuildIDs)))
	<-ctx.Done()
	closeCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	return a.Close(closeCtx)
}
