package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/config"
)

// startupLine is what `cita serve` prints on stdout once it listens: what it serves and where
// to check its health ("Slack in socket mode; health at http://localhost:8080/healthz").
func startupLine(sc config.SlackConfig, discordMode string, mcp bool, sources int, addr net.Addr) string {
	var parts []string
	if sc.Enabled() {
		if sc.Mode == "http" {
			parts = append(parts, fmt.Sprintf("Slack in http mode at %s/events", sc.Path))
		} else {
			parts = append(parts, "Slack in socket mode")
		}
	}
	if discordMode != "" {
		parts = append(parts, "Discord in "+discordMode+" mode")
	}
	if mcp {
		parts = append(parts, "MCP at /mcp")
	}
	if sources > 0 {
		parts = append(parts, fmt.Sprintf("syncing %d source(s)", sources))
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = addr.String(), ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	parts = append(parts, "health at http://"+net.JoinHostPort(host, port)+"/healthz")
	return strings.Join(parts, "; ")
}

// refuseWhileDraining answers 503 (with Retry-After) to every request but the probes and
// /metrics once the server drains, so the listener stays open for /readyz while answers in
// flight finish, and Slack retries the events it sends meanwhile (to another replica).
func refuseWhileDraining(ready *readiness, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ready.draining.Load() {
			switch r.URL.Path {
			case "/healthz", "/readyz", "/metrics":
			default:
				w.Header().Set("Retry-After", "5")
				http.Error(w, "shutting down", http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// waitIdle returns once no answer runs or waits in queue, or ctx ends.
func waitIdle(ctx context.Context, queue *bot.Queue) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if s := queue.Stat(); s.Running == 0 && s.Waiting == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// discordStartError names discord.token when Discord refused it (HTTP 401 on registering
// /ask or opening the gateway), like every other start-up error names its field.
func discordStartError(err error) error {
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("discord refused the bot token (check discord.token, or DISCORD_BOT_TOKEN: the Bot → Token of the Developer Portal): %w", err)
	}
	return err
}
