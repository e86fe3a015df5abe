package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/rag"
)

// The gap tour (`cita gaps tour`, a step of `make demo`): the whole loop through the real Slack
// adapter, against a loopback Slack in this process, on a scratch namespace of the configured
// database. A question in a public channel is declined; `cita gaps` lists it; the office team
// adds the page that answers it and a sync indexes it; the follow-through answers the thread,
// once. Nothing leaves the machine.

const (
	tourChannel  = "CGENERAL"
	tourAsker    = "U7"
	tourQuestion = "Is there a gym for employees at the Medellín office?"
	tourDoc      = "handbook/gym-medellin.md"
	tourDocText  = "# Gym at the Medellín office\n\nEmployees can use the gym on the third floor of the Medellín office for free, from 6:00 to 20:00. Register at reception on your first visit.\n"
	tourSecret   = "tour-signing-secret"
)

func runGapsTour(ctx context.Context, e *env, args []string) error {
	fs := newFlags("gaps", e, commands["gaps"].usage)
	corpus := fs.String("corpus", "testdata/corpus", "the folder the tour's organisation starts with")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	root, err := filepath.Abs(*corpus)
	if err != nil {
		return err
	}
	a, closeApp, err := openScratchApp(ctx, e, "cita_tour")
	if err != nil {
		return err
	}
	defer closeApp()
	if _, err := indexFolder(ctx, e, a, root, sibling(root, "corpus.yaml")); err != nil {
		return err
	}
	off := false
	a.cfg.Cache.Enabled = &off
	p, err := a.pipeline(ctx, e)
	if err != nil {
		return err
	}
	store := pgbot.New(a.pool)
	out := e.stdout
	step := func(format string, args ...any) { fmt.Fprintf(out, "\n\033[1m"+format+"\033[0m\n", args...) }

	fake := slackload.NewFakeSlack()
	defer fake.Close()
	fake.PublicChannel(tourChannel, tourAsker, "U8")
	handler := bot.NewHandler(p, store, bot.HandlerOptions{IndexEmpty: store.IndexEmpty, Logger: e.logger})
	adapter, err := slackbot.New(ctx, slackbot.Options{BotToken: "xoxb-tour", SigningSecret: tourSecret, APIURL: fake.APIURL(),
		Handler: handler, Store: store, Gaps: store, Logger: e.logger,
		Access: bot.NewAccessMap(nil, nil, nil, map[string][]string{"example.com": {"everyone"}}, nil)})
	if err != nil {
		return err
	}
	defer func() { _ = adapter.Shutdown(context.WithoutCancel(ctx)) }()
	srv := httptest.NewServer(adapter.HTTPHandler("/slack"))
	defer srv.Close()

	step("In #general (a loopback Slack), %s asks: @cita %s", tourAsker, tourQuestion)
	ts := fmt.Sprintf("%d.000100", time.Now().Unix())
	body := slackload.MentionEvent("EvTour1", tourChannel, tourAsker, tourQuestion, ts)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/slack/events", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	slackload.Sign(req.Header, body, tourSecret, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	first, err := waitMessages(ctx, fake, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cita (in the thread): %s\n", html.UnescapeString(first[0].Text))

	step("$ cita gaps   (the question was asked in a public channel, so it is in the record)")
	reader := rag.NewTopicReader(a.lexicon, a.translator.Translator)
	if _, err := store.AssignGapTopics(ctx, reader.Signature, a.cfg.Gaps.TopicThreshold); err != nil {
		return err
	}
	everyone := rag.MustScope("everyone")
	rep, err := store.GapReport(ctx, bot.GapQuery{Reader: everyone})
	if err != nil {
		return err
	}
	printGaps(out, rep, time.Time{}, everyone)

	step("The office team adds %s; the next sync indexes it", tourDoc)
	extra, err := os.MkdirTemp("", "cita-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(extra)
	if err := os.MkdirAll(filepath.Join(extra, filepath.Dir(tourDoc)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(extra, tourDoc), []byte(tourDocText), 0o644); err != nil {
		return err
	}
	since := time.Now()
	if _, err := indexFolder(ctx, e, a, extra, ""); err != nil { // the default groups: everyone
		return err
	}

	step("Follow-through: cita asks the open gaps again and answers where everyone may read the new page")
	follower := bot.NewGapFollower(store, p, map[string]bot.GapPoster{"slack": adapter}, e.logger)
	res, err := follower.Follow(ctx, since)
	if err != nil {
		return err
	}
	all, err := waitMessages(ctx, fake, 2)
	if err != nil {
		return fmt.Errorf("the follow-through posted nothing (%+v): %w", res, err)
	}
	followUp := all[len(all)-1]
	where := "a new message"
	if followUp.ThreadTS == first[0].ThreadTS && followUp.ThreadTS != "" {
		where = "the same thread"
	}
	fmt.Fprintf(out, "cita (in %s): %s\n", where, html.UnescapeString(followUp.Text))
	again, err := follower.Follow(ctx, since)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nresolved %d; asked again after the next sync: %d more posted (never twice)\n", res.Resolved, again.Resolved)
	return nil
}

// waitMessages waits up to 30 s for at least n messages with blocks in the tour's channel.
func waitMessages(ctx context.Context, fake *slackload.FakeSlack, n int) ([]slackload.Message, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if msgs := fake.Messages(tourChannel); len(msgs) >= n && !strings.HasSuffix(msgs[len(msgs)-1].Text, "…") {
			return msgs, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no reply in %s after 30 s", tourChannel)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
