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
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
)

// shutdownGrace is how long in-flight answers may take to finish after SIGTERM.
const shutdownGrace = 30 * time.Second

func init() {
	register("serve", &command{
		summary: "run the chat adapters (Slack) with a health endpoint",
		usage: `Usage: cita serve [--listen ADDR]

Runs the Slack adapter configured under "slack:" in the configuration file (see docs/slack.md):
Socket Mode by default, or the Events API over HTTP with slack.mode: http, whose endpoints are
<slack.path>/events, /interactions and /commands on the listen address. GET /healthz answers
200 while the database answers. On SIGINT or SIGTERM it stops taking new events and lets the
answers in flight finish (up to 30 s).

Flags:
`,
		run: runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags("serve", e, commands["serve"].usage)
	listen := fs.String("listen", "", "HTTP address for /healthz and the Slack endpoints (default: listen from the configuration, else :8080)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, err := openApp(ctx, e, "")
	if err != nil {
		return err
	}
	defer a.Close()
	sc := a.cfg.Slack
	sc.ApplyEnv()
	if err := sc.Validate(); err != nil {
		return err
	}
	dc := a.cfg.Discord
	runner := syncrun.New(a.pool, a.store, a.embedder, indexer.Options{}, e.logger)
	sched := scheduler.New(runner, e.logger)
	for _, src := range a.cfg.Sources {
		conn, err := syncrun.OpenSource(ctx, src, e.logger)
		if err != nil {
			return err
		}
		if err := sched.Add(src, conn); err != nil {
			return err
		}
	}
	if !sc.Enabled() && !dc.Enabled() && len(a.cfg.Sources) == 0 {
		return errors.New("nothing to serve: set slack.bot_token (or SLACK_BOT_TOKEN) and/or discord.token in the configuration; see docs/slack.md and docs/discord.md")
	}
	sc = sc.WithDefaults()
	p, err := a.pipeline(ctx, e)
	if err != nil {
		return err
	}
	store := pgbot.New(a.pool)
	handler := bot.NewHandler(p, store, bot.HandlerOptions{
		RateLimit:  bot.RateLimit{PerMinute: sc.RateLimit.PerMinute, Burst: sc.RateLimit.Burst},
		IndexEmpty: store.IndexEmpty,
		Logger:     e.logger,
	})
	opts := slackbot.Options{
		BotToken: sc.BotToken, APIURL: sc.APIURL, Handler: handler, Store: store,
		Access:   bot.NewAccessMap(sc.Users, sc.UserGroups, sc.Emails, sc.Domains, sc.DefaultGroups),
		ScopeTTL: sc.ScopeCacheTTL, Logger: e.logger,
	}
	if sc.Mode == "socket" {
		opts.AppToken = sc.AppToken
	} else {
		opts.SigningSecret = sc.SigningSecret
	}
	var adapter *slackbot.Adapter
	if sc.Enabled() {
		if adapter, err = slackbot.New(ctx, opts); err != nil {
			return err
		}
	}

	addr := *listen
	if addr == "" {
		addr = a.cfg.Listen
	}
	if addr == "" {
		addr = ":8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		pctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := a.pool.Ping(pctx); err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	if adapter != nil && sc.Mode == "http" {
		mux.Handle(sc.Path+"/", adapter.HTTPHandler(sc.Path))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	e.logger.InfoContext(ctx, "serving", slog.String("listen", ln.Addr().String()), slog.String("slack_mode", sc.Mode))
	fmt.Fprintf(e.stderr, "cita serve: Slack enabled=%v (%s mode), Discord enabled=%v; health at http://%s/healthz\n", sc.Enabled(), sc.Mode, dc.Enabled(), ln.Addr())

	sched.Start(ctx)
	defer sched.Stop()
	g, gctx := errgroup.WithContext(ctx)
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
		g.Go(func() error { return discord.Run(gctx, dc, handler, mux, e.logger) })
	}
	g.Go(func() error { pruneEvents(gctx, store, e.logger); return nil })
	g.Go(func() error {
		<-gctx.Done()
		// Stop taking requests, then let the answers in flight finish.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), shutdownGrace)
		defer cancel()
		herr := srv.Shutdown(sctx)
		var aerr error
		if adapter != nil {
			aerr = adapter.Shutdown(sctx)
		}
		return errors.Join(herr, aerr)
	})
	err = g.Wait()
	if ctx.Err() != nil && err == nil {
		fmt.Fprintln(e.stderr, "cita serve: stopped")
	}
	return err
}

// pruneEvents forgets dedupe ids older than a day, hourly (Slack retries within the hour).
func pruneEvents(ctx context.Context, store *pgbot.Store, logger *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if _, err := store.PruneEvents(ctx, time.Now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
			logger.WarnContext(ctx, "prune slack event ids", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
