package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	"github.com/citahq/cita/bot/pgbot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
)

func init() {
	register("serve", &command{
		summary: "run the chat adapters, the sync scheduler, health checks and metrics",
		usage: `Usage: cita serve [--listen ADDR]

Runs what the configuration enables: the Slack adapter ("slack:", see docs/slack.md), the
Discord adapter ("discord:", docs/discord.md), the MCP server for AI assistants and IDEs
("mcp: {enabled: true}", docs/mcp.md) and the sync scheduler ("sources:", docs/sync.md), with one
HTTP server on the listen address (default :8080):

  GET /healthz   200 while the process runs (liveness)
  GET /readyz    200 when the database answers and its schema is current (readiness)
  GET /metrics   Prometheus metrics
  <slack.path>/events, /interactions, /commands      Slack in http mode
  <discord.http_path>                                Discord in http mode
  /mcp           the MCP server (streamable HTTP), with mcp.enabled

Answers run on server.workers workers with a line of server.queue_size questions; past it askers
get a "busy" reply. Logs are JSON when stderr is not a terminal (server.log.format to choose).
On SIGINT or SIGTERM it stops taking events, lets the answers in flight finish (up to
server.shutdown_grace, 30s) and stops the scheduler. Every hour it prunes answer records and
conversation turns older than retention.answers (default 2160h, 90 days) and redacts those whose
documents were deleted or no longer reach the answer's audience. Every sweep.interval (default
10m; "off" disables) one replica re-checks who reads each channel showing answers and withdraws
what they may no longer read (docs/security.md). See docs/production.md.

Flags:
`,
		run: runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags("serve", e, commands["serve"].usage)
	listen := fs.String("listen", "", "HTTP address for health, metrics and the chat endpoints (default: listen from the configuration, else :8080)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	server := cfg.Server
	if err := server.ApplyEnv(); err != nil {
		return err
	}
	if err := server.Validate(); err != nil {
		return err
	}
	server = server.WithDefaults()
	e.logger = serveLogger(server.Log, e.stderr, e.logger.Enabled(ctx, slog.LevelDebug))

	a, err := openApp(ctx, e, "")
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.useReplicas(ctx, e); err != nil {
		return err
	}
	sc, dc := a.cfg.Slack, a.cfg.Discord
	sc.ApplyEnv()
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := dc.Validate(); err != nil {
		return err
	}
	if !sc.Enabled() && !dc.Enabled() && !a.cfg.MCP.Enabled && len(a.cfg.Sources) == 0 {
		return errors.New("nothing to serve: set slack.bot_token (or SLACK_BOT_TOKEN), discord.token, mcp.enabled, or sources in the configuration; see docs/slack.md, docs/discord.md, docs/mcp.md and docs/sync.md")
	}
	sc = sc.WithDefaults()

	m := metrics.New()
	m.WatchPool(a.pool)
	m.WatchTranslations()
	a.observeTranslations(m)
	if a.replicas != nil {
		m.WatchReplicas(a.replicas)
	}
	runner := syncrun.New(a.pool, a.store, a.embedder, indexer.Options{}, e.logger)
	notices := &noticeRunner{next: m.InstrumentRunner(runner), logger: e.logger}
	sched := scheduler.New(notices, e.logger)
	var sourceNames []string
	for _, src := range a.cfg.Sources {
		sourceNames = append(sourceNames, src.Name)
	}
	m.WatchFreshness(runner.History(), sourceNames)
	conns := map[string]syncrun.Source{}
	for _, src := range a.cfg.Sources {
		conn, err := syncrun.OpenSource(ctx, src, e.logger)
		if err != nil {
			return err
		}
		conns[src.Name] = conn
		if err := sched.Add(src, conn); err != nil {
			return err
		}
	}
	go a.warmTranslator(ctx, e.logger)
	p, err := a.pipeline(ctx, e)
	if err != nil {
		return err
	}
	store := pgbot.New(a.pool)
	queue := bot.NewQueue(server.Workers, server.QueueSize)
	m.WatchQueue(queue)
	userLimit := bot.RateLimit{PerMinute: sc.RateLimit.PerMinute, Burst: sc.RateLimit.Burst}
	if server.UserRateLimit.PerMinute > 0 {
		userLimit = bot.RateLimit{PerMinute: server.UserRateLimit.PerMinute, Burst: server.UserRateLimit.Burst}
	}
	handler := bot.NewHandler(p, store, bot.HandlerOptions{
		RateLimit:          userLimit,
		WorkspaceRateLimit: bot.RateLimit{PerMinute: server.WorkspaceRateLimit.PerMinute, Burst: server.WorkspaceRateLimit.Burst},
		Queue:              queue,
		Observer:           m,
		IndexEmpty:         store.IndexEmpty,
		AnswerTimeout:      answerTimeout(a.cfg),
		Logger:             e.logger,
	})
	identity := identityGroupsOf(a.cfg.Identity, a.pool)
	directoryRefresher, err := identity.refresher(ctx, a.cfg.Identity, e.logger)
	if err != nil {
		return err
	}
	var discordAdapter *discord.Adapter
	if dc.Enabled() {
		discordOpts, err := discordOptions(dc, handler, e.logger)
		if err != nil {
			return err
		}
		discord.SetLibraryLogger(e.logger)
		discordOpts.Transport = m.InstrumentTransport("discord", nil)
		discordOpts.Trace = func(step string, d time.Duration) { m.ObserveVisible("discord", step, d) }
		if discordAdapter, err = discord.New(discordOpts); err != nil {
			return err
		}
	}
	var adapter *slackbot.Adapter
	if sc.Enabled() {
		opts := slackbot.Options{
			BotToken: sc.BotToken, APIURL: sc.APIURL, Handler: handler, Store: store,
			Access:        identity.apply(bot.NewAccessMap(sc.Users, sc.UserGroups, sc.Emails, sc.Domains, sc.DefaultGroups)),
			ChannelGroups: sc.ChannelGroups, ScopeTTL: sc.ScopeCacheTTL, Logger: e.logger, SuggestedPrompts: sc.SuggestedPrompts,
			HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: m.InstrumentTransport("slack", nil)},
			Trace:      func(step string, d time.Duration) { m.ObserveVisible("slack", step, d) },
		}
		if sc.Mode == "socket" {
			opts.AppToken = sc.AppToken
		} else {
			opts.SigningSecret = sc.SigningSecret
		}
		if adapter, err = slackbot.New(ctx, opts); err != nil {
			return err
		}
	}

	notices.notifier = sourceNotifier(store, sc, adapter, dc, discordAdapter, e.logger)

	addr := *listen
	if addr == "" {
		addr = a.cfg.Listen
	}
	if addr == "" {
		addr = ":8080"
	}
	ready := &readiness{pool: a.pool}
	mux := http.NewServeMux()
	serveRoutes(mux, ready, m, e.logger)
	if adapter != nil && sc.Mode == "http" {
		mux.Handle(sc.Path+"/", adapter.HTTPHandler(sc.Path))
	}
	if a.cfg.MCP.Enabled {
		mux.Handle(mcpserver.Path, a.mcpServer(p, queue, userLimit, identity, e.logger).Handler())
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: refuseWhileDraining(ready, mux), ReadHeaderTimeout: 10 * time.Second}
	e.logger.InfoContext(ctx, "serving", slog.String("listen", ln.Addr().String()), slog.Bool("slack", sc.Enabled()),
		slog.String("slack_mode", sc.Mode), slog.Bool("discord", dc.Enabled()), slog.Bool("mcp", a.cfg.MCP.Enabled), slog.Int("sources", len(a.cfg.Sources)),
		slog.Int("workers", server.Workers), slog.Int("queue_size", server.QueueSize))
	discordMode := ""
	if dc.Enabled() {
		discordMode = dc.WithDefaults().Mode
	}
	fmt.Fprintln(e.stdout, startupLine(sc, discordMode, a.cfg.MCP.Enabled, len(a.cfg.Sources), ln.Addr()))

	sched.Start(ctx)
	defer sched.Stop()
	g, gctx := errgroup.WithContext(ctx)
	drivePush(gctx, g, mux, a.cfg.Sources, conns, a.pool, sched, runner.History(), e.logger)
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http server: %w", err)
		}
		return nil
	})
	if adapter != nil && sc.Mode == "socket" {
		g.Go(func() error { return adapter.RunSocketMode(gctx) })
	}
	if dc.Enabled() {
		g.Go(func() error { return discordStartError(discordAdapter.Serve(gctx, mux)) })
	}
	watchFolders(gctx, g, a.cfg.Sources, sched, runner.History(), e.logger)
	hk := housekeeping{store: store, retention: a.cfg.Retention.WithDefaults().Answers, logger: e.logger}
	if a.cfg.Cache.On() {
		hk.cache = pgstore.NewCache(a.pool, pgstore.CacheOptions{TTL: a.cfg.Cache.TTL, AbstainTTL: a.cfg.Cache.AbstainTTL}, e.logger)
	}
	g.Go(func() error { hk.run(gctx); return nil })
	sweeps := map[string]bot.ChannelSweep{}
	if adapter != nil {
		sweeps["slack"] = adapter
	}
	if discordAdapter != nil {
		sweeps["discord"] = discordAdapter
	}
	if err := startSweeps(gctx, g, a.cfg.Sweep.Every(), store, m, sweeps, e.logger); err != nil {
		return err
	}
	if notices.notifier != nil {
		g.Go(func() error { runNotices(gctx, notices.notifier, e.logger); return nil })
	}
	if directoryRefresher != nil {
		g.Go(func() error { directoryRefresher.Run(gctx); return nil })
	}
	g.Go(func() error {
		<-gctx.Done()
		ready.draining.Store(true)
		e.logger.Info("shutting down: letting answers in flight finish", slog.Duration("grace", server.ShutdownGrace),
			slog.Int("answering", queue.Stat().Running), slog.Int("waiting", queue.Stat().Waiting))
		// Refuse new requests with 503 but keep listening, so /readyz says "shutting down" rather
		// than refusing connections, until the answers in flight finish; then close the
		// listener and stop the scheduler (it cancels passes in progress; each records itself
		// as interrupted).
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), server.ShutdownGrace)
		defer cancel()
		var aerr error
		if adapter != nil {
			aerr = adapter.Shutdown(sctx)
		}
		waitIdle(sctx, queue)
		herr := srv.Shutdown(sctx)
		sched.Stop()
		return errors.Join(herr, aerr)
	})
	err = g.Wait()
	if ctx.Err() != nil && err == nil {
		e.logger.Info("stopped")
	}
	return err
}
