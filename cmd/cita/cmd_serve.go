package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	"github.com/citahq/cita/bot/pgbot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/directory"
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
	s := &service{e: e, listen: *listen}
	defer s.close()
	for _, step := range []func(context.Context) error{
		s.readServerConfig,
		s.openApp,
		s.readChatConfigs,
		s.watchMetrics,
		s.scheduleSources,
		s.buildHandler,
		s.resolveIdentity,
		s.buildDiscord,
		s.buildSlack,
		s.routeNotices,
		s.listenHTTP,
		s.announce,
		s.serve,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// service is what `cita serve` wires and runs; each step of runServe fills fields later ones use.
type service struct {
	e          *env
	listen     string // --listen
	server     config.ServerConfig
	a          *app
	slackCfg   config.SlackConfig
	discordCfg config.DiscordConfig
	metrics    *metrics.Metrics
	runner     *syncrun.Runner
	notices    *noticeRunner
	sched      *scheduler.Scheduler
	conns      map[string]syncrun.Source
	pipeline   *rag.Pipeline
	store      *pgbot.Store
	queue      *bot.Queue
	userLimit  bot.RateLimit
	handler    *bot.Handler
	identity   identityGroups
	directory  *directory.Refresher // nil without Google Groups
	slackBot   *slackbot.Adapter    // nil when Slack is off
	discordBot *discord.Adapter     // nil when Discord is off
	ready      *readiness
	mux        *http.ServeMux
	ln         net.Listener
	srv        *http.Server
}

// close closes the app once it is open.
func (s *service) close() {
	if s.a != nil {
		s.a.Close()
	}
}

// readServerConfig reads the server section (env applied, validated, defaulted); logs as it says.
func (s *service) readServerConfig(ctx context.Context) error {
	cfg, err := loadConfig(s.e)
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
	s.server = server.WithDefaults()
	s.e.logger = serveLogger(s.server.Log, s.e.stderr, s.e.logger.Enabled(ctx, slog.LevelDebug))
	return nil
}

// openApp opens the app with its search arms on the read replicas (see useReplicas).
func (s *service) openApp(ctx context.Context) error {
	a, err := openApp(ctx, s.e, "")
	if err != nil {
		return err
	}
	s.a = a
	return a.useReplicas(ctx, s.e)
}

// readChatConfigs reads the Slack (env and defaults applied) and Discord sections, validated,
// and refuses to serve nothing.
func (s *service) readChatConfigs(context.Context) error {
	cfg := s.a.cfg
	sc, dc := cfg.Slack, cfg.Discord
	sc.ApplyEnv()
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := dc.Validate(); err != nil {
		return err
	}
	if !sc.Enabled() && !dc.Enabled() && !cfg.MCP.Enabled && len(cfg.Sources) == 0 {
		return errors.New("nothing to serve: set slack.bot_token (or SLACK_BOT_TOKEN), discord.token, mcp.enabled, or sources in the configuration; see docs/slack.md, docs/discord.md, docs/mcp.md and docs/sync.md")
	}
	s.slackCfg, s.discordCfg = sc.WithDefaults(), dc
	return nil
}

// watchMetrics starts the metrics of the pool, the replicas and the query translations.
func (s *service) watchMetrics(context.Context) error {
	a, m := s.a, metrics.New()
	m.WatchPool(a.pool)
	m.WatchTranslations()
	a.observeTranslations(m)
	if a.replicas != nil {
		m.WatchReplicas(a.replicas)
	}
	s.metrics = m
	return nil
}

// scheduleSources opens every source and adds it to the scheduler (started by serve).
func (s *service) scheduleSources(ctx context.Context) error {
	a, logger := s.a, s.e.logger
	s.runner = syncrun.New(a.pool, a.store, a.embedder, indexer.Options{}, logger)
	s.notices = &noticeRunner{next: s.metrics.InstrumentRunner(s.runner), logger: logger}
	s.sched = scheduler.New(s.notices, logger)
	var sourceNames []string
	for _, src := range a.cfg.Sources {
		sourceNames = append(sourceNames, src.Name)
	}
	s.metrics.WatchFreshness(s.runner.History(), sourceNames)
	s.conns = map[string]syncrun.Source{}
	for _, src := range a.cfg.Sources {
		conn, err := syncrun.OpenSource(ctx, src, logger)
		if err != nil {
			return err
		}
		s.conns[src.Name] = conn
		if err := s.sched.Add(src, conn); err != nil {
			return err
		}
	}
	return nil
}

// buildHandler wires the pipeline and the handler every chat adapter hands its turns to.
func (s *service) buildHandler(ctx context.Context) error {
	a, server := s.a, s.server
	go a.warmTranslator(ctx, s.e.logger)
	p, err := a.pipeline(ctx, s.e)
	if err != nil {
		return err
	}
	s.pipeline = p
	s.store = pgbot.New(a.pool)
	s.queue = bot.NewQueue(server.Workers, server.QueueSize)
	s.metrics.WatchQueue(s.queue)
	s.userLimit = bot.RateLimit{PerMinute: s.slackCfg.RateLimit.PerMinute, Burst: s.slackCfg.RateLimit.Burst}
	if server.UserRateLimit.PerMinute > 0 {
		s.userLimit = bot.RateLimit{PerMinute: server.UserRateLimit.PerMinute, Burst: server.UserRateLimit.Burst}
	}
	s.handler = bot.NewHandler(p, s.store, bot.HandlerOptions{
		RateLimit:          s.userLimit,
		WorkspaceRateLimit: bot.RateLimit{PerMinute: server.WorkspaceRateLimit.PerMinute, Burst: server.WorkspaceRateLimit.Burst},
		Queue:              s.queue,
		Observer:           s.metrics,
		IndexEmpty:         s.store.IndexEmpty,
		AnswerTimeout:      answerTimeout(a.cfg),
		Logger:             s.e.logger,
	})
	return nil
}

// resolveIdentity wires the groups of askers' emails and Google Groups (see identityGroups).
func (s *service) resolveIdentity(ctx context.Context) error {
	s.identity = identityGroupsOf(s.a.cfg.Identity, s.a.pool)
	var err error
	s.directory, err = s.identity.refresher(ctx, s.a.cfg.Identity, s.e.logger)
	return err
}

// buildDiscord wires the Discord adapter when Discord is on.
func (s *service) buildDiscord(context.Context) error {
	if !s.discordCfg.Enabled() {
		return nil
	}
	opts, err := discordOptions(s.discordCfg, s.handler, s.e.logger)
	if err != nil {
		return err
	}
	discord.SetLibraryLogger(s.e.logger)
	opts.Gaps = s.store // "Tell the document owners" (docs/gaps.md)
	opts.Transport = s.metrics.InstrumentTransport("discord", nil)
	opts.Trace = func(step string, d time.Duration) { s.metrics.ObserveVisible("discord", step, d) }
	s.discordBot, err = discord.New(opts)
	return err
}

// buildSlack wires the Slack adapter when Slack is on.
func (s *service) buildSlack(ctx context.Context) error {
	sc, m := s.slackCfg, s.metrics
	if !sc.Enabled() {
		return nil
	}
	opts := slackbot.Options{
		BotToken: sc.BotToken, APIURL: sc.APIURL, Handler: s.handler, Store: s.store,
		Access:        s.identity.apply(bot.NewAccessMap(sc.Users, sc.UserGroups, sc.Emails, sc.Domains, sc.DefaultGroups)),
		ChannelGroups: sc.ChannelGroups, ScopeTTL: sc.ScopeCacheTTL, Logger: s.e.logger, SuggestedPrompts: sc.SuggestedPrompts,
		Disclaimer: sc.Disclaimer, // display only: not the pipeline's, not in the answer cache
		Gaps:       s.store,       // "Tell the document owners" (docs/gaps.md)
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: m.InstrumentTransport("slack", nil)},
		Trace:      func(step string, d time.Duration) { m.ObserveVisible("slack", step, d) },
	}
	if sc.Mode == "socket" {
		opts.AppToken = sc.AppToken
	} else {
		opts.SigningSecret = sc.SigningSecret
	}
	var err error
	s.slackBot, err = slackbot.New(ctx, opts)
	return err
}

// routeNotices posts the passes' source-change notices via the adapters (see sourceNotifier).
func (s *service) routeNotices(context.Context) error {
	s.notices.notifier = sourceNotifier(s.store, s.slackCfg, s.slackBot, s.discordCfg, s.discordBot, s.e.logger)
	if f := s.gapFollower(); f != nil {
		reader, threshold := s.topicReader(), s.a.cfg.Gaps.TopicThreshold
		group := func(ctx context.Context) error {
			_, err := s.store.AssignGapTopics(ctx, reader.Signature, threshold)
			return err
		}
		s.notices.gaps = func(ctx context.Context, since time.Time) { followGaps(ctx, f, group, since, s.metrics, s.e.logger) }
	}
	return nil
}

// topicReader reads gap questions' topics with the app's glossaries and translator.
func (s *service) topicReader() *rag.TopicReader {
	return rag.NewTopicReader(s.a.lexicon, s.a.translator.Translator)
}

// listenHTTP mounts the routes and listens on --listen, else the configured listen, else :8080.
func (s *service) listenHTTP(context.Context) error {
	addr := s.listen
	if addr == "" {
		addr = s.a.cfg.Listen
	}
	if addr == "" {
		addr = ":8080"
	}
	s.ready = &readiness{pool: s.a.pool}
	s.mux = http.NewServeMux()
	serveRoutes(s.mux, s.ready, s.metrics, s.e.logger)
	if s.slackBot != nil && s.slackCfg.Mode == "http" {
		s.mux.Handle(s.slackCfg.Path+"/", s.slackBot.HTTPHandler(s.slackCfg.Path))
	}
	if s.a.cfg.MCP.Enabled {
		s.mux.Handle(mcpserver.Path, s.a.mcpServer(s.pipeline, s.queue, s.userLimit, s.identity, s.e.logger).Handler())
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: refuseWhileDraining(s.ready, s.mux), ReadHeaderTimeout: 10 * time.Second}
	return nil
}

// announce logs what is served and prints the startup line (see startupLine).
func (s *service) announce(ctx context.Context) error {
	sc, dc, cfg := s.slackCfg, s.discordCfg, s.a.cfg
	s.e.logger.InfoContext(ctx, "serving", slog.String("listen", s.ln.Addr().String()), slog.Bool("slack", sc.Enabled()),
		slog.String("slack_mode", sc.Mode), slog.Bool("discord", dc.Enabled()), slog.Bool("mcp", cfg.MCP.Enabled), slog.Int("sources", len(cfg.Sources)),
		slog.Int("workers", s.server.Workers), slog.Int("queue_size", s.server.QueueSize))
	discordMode := ""
	if dc.Enabled() {
		discordMode = dc.WithDefaults().Mode
	}
	fmt.Fprintln(s.e.stdout, startupLine(sc, discordMode, cfg.MCP.Enabled, len(cfg.Sources), s.ln.Addr()))
	return nil
}
