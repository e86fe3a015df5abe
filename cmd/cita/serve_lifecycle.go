package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag/pgstore"
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

// serve starts the scheduler and every part; it runs until ctx ends (then drains) or a part fails.
func (s *service) serve(ctx context.Context) error {
	s.sched.Start(ctx)
	defer s.sched.Stop()
	g, gctx := errgroup.WithContext(ctx)
	s.startSyncTriggers(gctx, g)
	s.startChats(gctx, g)
	if err := s.startUpkeep(gctx, g); err != nil {
		return err
	}
	g.Go(func() error { return s.drain(gctx) })
	err := g.Wait()
	if ctx.Err() != nil && err == nil {
		s.e.logger.Info("stopped")
	}
	return err
}

// startSyncTriggers starts what triggers passes besides the schedule: Drive push notifications
// (mounting their hook) and folder watchers.
func (s *service) startSyncTriggers(ctx context.Context, g *errgroup.Group) {
	a, history := s.a, s.runner.History()
	drivePush(ctx, g, s.mux, a.cfg.Sources, s.conns, a.pool, s.sched, history, s.e.logger)
	watchFolders(ctx, g, a.cfg.Sources, s.sched, history, s.e.logger)
}

// startChats starts the HTTP server, and Slack in socket mode and Discord when they are on.
func (s *service) startChats(ctx context.Context, g *errgroup.Group) {
	g.Go(func() error {
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http server: %w", err)
		}
		return nil
	})
	if s.slackBot != nil && s.slackCfg.Mode == "socket" {
		g.Go(func() error { return s.slackBot.RunSocketMode(ctx) })
	}
	if s.discordCfg.Enabled() {
		g.Go(func() error { return discordStartError(s.discordBot.Serve(ctx, s.mux)) })
	}
}

// startUpkeep starts the background work: housekeeping of old answers, the reconciliation
// sweeps, the source-change notices owed and the group directory's refresh. It returns an error
// only for a bad sweep interval.
func (s *service) startUpkeep(ctx context.Context, g *errgroup.Group) error {
	a, logger := s.a, s.e.logger
	hk := housekeeping{store: s.store, retention: a.cfg.Retention.WithDefaults().Answers, logger: logger}
	if a.cfg.Cache.On() {
		hk.cache = pgstore.NewCache(a.pool, pgstore.CacheOptions{TTL: a.cfg.Cache.TTL, AbstainTTL: a.cfg.Cache.AbstainTTL}, logger)
	}
	g.Go(func() error { hk.run(ctx); return nil })
	sweeps := map[string]bot.ChannelSweep{}
	if s.slackBot != nil {
		sweeps["slack"] = s.slackBot
	}
	if s.discordBot != nil {
		sweeps["discord"] = s.discordBot
	}
	if err := startSweeps(ctx, g, a.cfg.Sweep.Every(), s.store, s.metrics, sweeps, logger); err != nil {
		return err
	}
	startGapGrouping(ctx, g, s.store, s.topicReader(), a.cfg.Gaps.TopicThreshold, s.metrics, logger)
	if err := s.startGapDigest(ctx, g); err != nil {
		return err
	}
	if s.notices.notifier != nil {
		g.Go(func() error { runNotices(ctx, s.notices.notifier, logger); return nil })
	}
	if s.directory != nil {
		g.Go(func() error { s.directory.Run(ctx); return nil })
	}
	return nil
}

// drain waits for ctx to end, then refuses new requests with 503 but keeps listening, so
// /readyz says "shutting down" rather than refusing connections, until the answers in flight
// finish (up to server.shutdown_grace); then it closes the listener and stops the scheduler (it
// cancels passes in progress; each records itself as interrupted).
func (s *service) drain(ctx context.Context) error {
	<-ctx.Done()
	s.ready.draining.Store(true)
	s.e.logger.Info("shutting down: letting answers in flight finish", slog.Duration("grace", s.server.ShutdownGrace),
		slog.Int("answering", s.queue.Stat().Running), slog.Int("waiting", s.queue.Stat().Waiting))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.server.ShutdownGrace)
	defer cancel()
	var aerr error
	if s.slackBot != nil {
		aerr = s.slackBot.Shutdown(sctx)
	}
	waitIdle(sctx, s.queue)
	herr := s.srv.Shutdown(sctx)
	s.sched.Stop()
	return errors.Join(herr, aerr)
}
