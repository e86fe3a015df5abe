package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// RunSocketMode connects to Slack over Socket Mode (apps.connections.open, then a websocket) and
// handles events until ctx ends. Every envelope is acknowledged before it is worked on. It
// returns nil when ctx ends, or the error that stopped the connection for good (a bad app token).
func (a *Adapter) RunSocketMode(ctx context.Context) error {
	client := socketmode.New(a.api)
	runErr := make(chan error, 1)
	go func() { runErr <- client.RunContext(ctx) }()
	for {
		select {
		case <-ctx.Done():
			<-runErr
			return nil
		case err := <-runErr:
			if ctx.Err() != nil {
				return nil
			}
			var slackErr slack.SlackErrorResponse
			if errors.As(err, &slackErr) {
				return fmt.Errorf("slack socket mode (check slack.app_token: an app-level xapp- token with the connections:write scope, from Basic Information → App-Level Tokens): %w", err)
			}
			return fmt.Errorf("slack socket mode: %w", err)
		case evt := <-client.Events:
			a.socketEvent(ctx, client, evt, time.Now())
		}
	}
}

func (a *Adapter) socketEvent(ctx context.Context, client *socketmode.Client, evt socketmode.Event, received time.Time) {
	switch evt.Type {
	case socketmode.EventTypeConnected:
		a.logger.InfoContext(ctx, "slack socket mode connected")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeInvalidAuth:
		a.logger.WarnContext(ctx, "slack socket mode connection", slog.String("event", string(evt.Type)), slog.Any("detail", evt.Data))
	case socketmode.EventTypeEventsAPI:
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok || evt.Request == nil {
			return
		}
		a.ack(ctx, client, evt.Request, nil)
		eventID := ""
		if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
			eventID = cb.EventID
		}
		a.goWork(func(ctx context.Context) { a.handleEvent(ctx, eventID, ev, received) })
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok || evt.Request == nil {
			return
		}
		a.ack(ctx, client, evt.Request, a.slashAck())
		a.goWork(func(ctx context.Context) { a.handleSlash(ctx, cmd, received) })
	case socketmode.EventTypeInteractive:
		cb, ok := evt.Data.(slack.InteractionCallback)
		if !ok || evt.Request == nil {
			return
		}
		a.ack(ctx, client, evt.Request, nil)
		a.goWork(func(ctx context.Context) { a.handleInteraction(ctx, cb) })
	}
}

func (a *Adapter) ack(ctx context.Context, client *socketmode.Client, req *socketmode.Request, payload any) {
	var err error
	if payload != nil {
		err = client.Ack(*req, payload)
	} else {
		err = client.Ack(*req)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		a.logger.WarnContext(ctx, "ack slack envelope", slog.String("envelope_id", req.EnvelopeID), slog.Any("error", err))
	}
}
