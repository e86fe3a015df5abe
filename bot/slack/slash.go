package slack

import (
	"context"
	"log/slog"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// slashAck is the immediate, ephemeral response to /cita (the first visible response).
func (a *Adapter) slashAck() map[string]string {
	return map[string]string{"response_type": "ephemeral", "text": a.opts.Placeholder}
}

// handleSlash answers /cita <question> ephemerally, with the asker's own groups.
func (a *Adapter) handleSlash(ctx context.Context, cmd slack.SlashCommand, received time.Time) {
	conv := bot.ConversationKey{Platform: platform, Workspace: cmd.TeamID, Channel: cmd.ChannelID}
	defer func() {
		if p := recover(); p != nil {
			bot.LogPanic(ctx, a.logger, "panic while answering /cita", p, slog.String("user_id", cmd.UserID))
			out := bot.ReasonReply(cmd.Text, bot.ReasonInternalError)
			a.ephemeral(ctx, cmd.ChannelID, cmd.UserID, "", slack.MsgOptionText(out.Text, false))
		}
	}()
	var out bot.Outgoing
	scope, err := a.askerScope(ctx, cmd.UserID)
	if err != nil {
		a.logger.ErrorContext(ctx, "resolve slack access", slog.String("user_id", cmd.UserID), slog.Any("error", err))
		out = bot.ReasonReply(cmd.Text, bot.ReasonAccessUnknown)
	} else {
		out = a.opts.Handler.Handle(ctx, bot.Incoming{Conversation: conv, UserID: cmd.UserID, Text: cmd.Text, Scope: scope,
			Audience: bot.AudiencePrivate, Ephemeral: true, ReceivedAt: received}, nil)
	}
	r := renderReplyWith(out, a.style(false))
	a.ephemeral(ctx, cmd.ChannelID, cmd.UserID, "", slack.MsgOptionText(r.fallback, false), slack.MsgOptionBlocks(r.blocks()...))
	a.trace("final", received)
}
