package main

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/robfig/cron/v3"
	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/syncrun"
)

// gapGroupEvery is how often `cita serve` groups the new gap questions into topics (one
// replica at a time: the store holds an advisory lock).
const gapGroupEvery = time.Minute

// startGapGrouping groups new gap questions every gapGroupEvery until ctx ends, and watches
// the open gaps in the metrics.
func startGapGrouping(ctx context.Context, g *errgroup.Group, store *pgbot.Store, reader *rag.TopicReader, threshold float64,
	m *metrics.Metrics, logger *slog.Logger) {
	m.WatchGaps(store)
	g.Go(func() error {
		t := time.NewTicker(gapGroupEvery)
		defer t.Stop()
		for {
			if n, err := store.AssignGapTopics(ctx, reader.Signature, threshold); err != nil && ctx.Err() == nil {
				logger.ErrorContext(ctx, "group gap questions", slog.String("error", err.Error()))
			} else if n > 0 {
				logger.InfoContext(ctx, "gap questions grouped", slog.Int("questions", n))
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	})
}

// gapFollower returns the follow-through through the adapters that run, or nil when
// gaps.follow_through is off or no chat platform runs.
func (s *service) gapFollower() *bot.GapFollower {
	if !s.a.cfg.Gaps.FollowThroughOn() {
		return nil
	}
	posters := map[string]bot.GapPoster{}
	if s.slackBot != nil {
		posters["slack"] = s.slackBot
	}
	if s.discordBot != nil {
		posters["discord"] = s.discordBot
	}
	if len(posters) == 0 {
		return nil
	}
	return bot.NewGapFollower(s.store, s.pipeline, posters, s.e.logger)
}

// followGaps groups what is new, then asks again the open gaps a pass that started at since
// may have answered.
func followGaps(ctx context.Context, f *bot.GapFollower, group func(context.Context) error, since time.Time, m *metrics.Metrics, logger *slog.Logger) {
	if err := group(ctx); err != nil && ctx.Err() == nil {
		logger.ErrorContext(ctx, "group gap questions before the follow-through", slog.String("error", err.Error()))
	}
	res, err := f.Follow(ctx, since)
	if err != nil && ctx.Err() == nil {
		logger.ErrorContext(ctx, "gap follow-through", slog.String("error", err.Error()))
		return
	}
	m.ObserveGapFollow(res)
	if res.Asked > 0 {
		logger.InfoContext(ctx, "gap follow-through", slog.Int("asked", res.Asked), slog.Int("resolved", res.Resolved),
			slog.Int("unsure", res.Unsure), slog.Int("failed", res.Failed))
	}
}

// startGapDigest posts the gap digest on gaps.digest.schedule to the configured channels of
// the platforms that run (robfig/cron, standard five fields). Off unless a schedule is set.
func (s *service) startGapDigest(ctx context.Context, g *errgroup.Group) error {
	cfg := s.a.cfg.Gaps
	if !cfg.DigestOn() {
		return nil
	}
	d := &bot.GapDigester{Store: s.store, Posters: map[string]bot.GapDigestPoster{}, Logger: s.e.logger}
	if s.slackBot != nil && cfg.Digest.SlackChannel != "" {
		d.Posters["slack"] = s.slackBot
		d.Targets = append(d.Targets, bot.DigestTarget{Platform: "slack", Channel: cfg.Digest.SlackChannel})
	}
	if s.discordBot != nil && cfg.Digest.DiscordChannel != "" {
		d.Posters["discord"] = s.discordBot
		d.Targets = append(d.Targets, bot.DigestTarget{Platform: "discord", Channel: cfg.Digest.DiscordChannel})
	}
	if len(d.Targets) == 0 {
		s.e.logger.WarnContext(ctx, "gaps.digest is scheduled but neither its Slack nor its Discord channel's platform runs: no digest is posted")
		return nil
	}
	reader, threshold := s.topicReader(), cfg.TopicThreshold
	d.Group = func(ctx context.Context) error {
		_, err := s.store.AssignGapTopics(ctx, reader.Signature, threshold)
		return err
	}
	c := cron.New()
	if _, err := c.AddFunc(cfg.Digest.Schedule, func() { d.Post(ctx, time.Now().Truncate(time.Minute)) }); err != nil {
		return fmt.Errorf("gaps.digest.schedule: %w", err)
	}
	c.Start()
	g.Go(func() error {
		<-ctx.Done()
		<-c.Stop().Done()
		return nil
	})
	s.e.logger.InfoContext(ctx, "gap digest scheduled", slog.String("schedule", cfg.Digest.Schedule), slog.Int("channels", len(d.Targets)))
	return nil
}

// homeStore is what Slack's App Home shows: the bot store's questions and gaps, and the sync
// history of the sources an owner's documents come from.
type homeStore struct {
	*pgbot.Store
	history *syncrun.History
}

// OwnedSources implements bot.HomeStore.
func (h homeStore) OwnedSources(ctx context.Context, email string, reader rag.Scope) ([]bot.SourceHealth, error) {
	docs, err := h.OwnedDocuments(ctx, email, reader)
	if err != nil {
		return nil, err
	}
	var out []bot.SourceHealth
	for src, n := range docs {
		s := bot.SourceHealth{Source: src, Documents: n}
		r, ok, err := h.history.Last(ctx, src)
		if err != nil {
			return nil, err
		}
		if ok {
			s.Known, s.LastRun, s.Complete, s.Error = true, r.StartedAt, r.Complete, r.Error
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out, nil
}
