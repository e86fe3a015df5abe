package discord

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// onMessage handles a gateway message: in a thread the bot owns it is a follow-up, in a DM a
// question. Other messages are ignored; those from guilds that are not configured are never
// answered.
func (a *Adapter) onMessage(m *discordgo.Message) {
	if m.Author == nil || m.Author.Bot {
		return
	}
	a.goWork(func(ctx context.Context) { a.answerMessage(ctx, m) }, a.messageFailure(m))
}

// answerMessage answers a follow-up in an owned thread, or a DM, with a message that replies to
// it. Every outcome is a reply: an answer, an abstention or a reason. In a thread it first
// withdraws earlier answers the channel's viewers may no longer read, records the reply's
// messages, and checks again after posting when the viewers changed meanwhile.
func (a *Adapter) answerMessage(ctx context.Context, m *discordgo.Message) {
	received := a.now()
	in := bot.Incoming{UserID: m.Author.ID, Text: strings.TrimSpace(m.Content), ReceivedAt: received}
	var aud channelAudience
	var version int64
	switch {
	case m.GuildID == "":
		if in.Text == "" || !a.firstDelivery(ctx, "discord:message:"+m.ID) {
			return
		}
		scope, err := a.audience.dmScope(ctx, m.Author.ID)
		if err != nil {
			a.replyTo(ctx, m, rendered{Parts: []string{a.dmRefusal(ctx, m.Author.ID, in.Text, err)}})
			return
		}
		in.Conversation = conversationKey("", m.ChannelID, "")
		in.Audience, in.Scope = bot.AudiencePrivate, scope
	case !a.allowedGuild(m.GuildID):
		a.refuseGuildMessage(ctx, m)
		return
	default:
		ch, err := a.audience.channel(ctx, m.ChannelID)
		if err != nil || !ch.IsThread() || !a.ownsThread(ch) {
			return
		}
		if in.Text == "" {
			// With the MESSAGE_CONTENT intent off, guild messages arrive without text.
			a.logger.DebugContext(ctx, "discord thread message without content", slog.String("channel_id", m.ChannelID))
			return
		}
		if !a.firstDelivery(ctx, "discord:message:"+m.ID) {
			return
		}
		if aud, version, _, err = a.resolveChannel(ctx, a.audience, m.GuildID, m.ChannelID, false); err != nil {
			a.logger.WarnContext(ctx, "discord channel audience", slog.String("channel_id", m.ChannelID), slog.Any("error", err))
			a.replyTo(ctx, m, rendered{Parts: []string{channelRefusal(err, rag.AnswerLang(in.Text))}})
			return
		}
		in.Conversation = conversationKey(m.GuildID, aud.channelID, m.ChannelID)
		in.Audience, in.Scope, in.Public = bot.AudienceChannel, aud.scope, aud.public
	}
	if err := a.session.ChannelTyping(m.ChannelID, discordgo.WithContext(ctx)); err != nil {
		a.logger.DebugContext(ctx, "discord typing", slog.Any("error", err))
	} else {
		a.trace("typing", received)
	}
	out := a.handler.Handle(ctx, in, nil)
	var ids []string
	err := a.writeAnswer(ctx, out.AnswerID, func() error {
		ids = a.replyTo(ctx, m, renderReply(withDiscordHint(out), "", false, a.display()))
		if len(ids) == 0 {
			return errNotPosted
		}
		if m.GuildID != "" && out.AnswerID != 0 {
			// Recorded before the write is counted, so that a withdrawal edits these messages.
			a.recordReply(ctx, out.AnswerID, "", replyRef{channel: m.ChannelID, messages: ids})
		}
		return nil
	})
	switch {
	case errors.Is(err, bot.ErrWriteWithdrawn) && len(ids) == 0:
		// Withdrawn before anything was posted: the asker gets the notice itself.
		a.replyTo(ctx, m, rendered{Parts: []string{bot.RedactedNotice(out.Lang, a.dmHint(out.Lang))}})
	case errors.Is(err, bot.ErrWriteUnchecked):
		a.logger.ErrorContext(ctx, "check discord answer before showing it; showing a short error instead", slog.String("channel_id", m.ChannelID), slog.Any("error", err))
		a.replyTo(ctx, m, rendered{Parts: []string{notRecordedText(out.Lang)}})
	}
	if len(ids) > 0 {
		a.trace("final", received)
	}
	a.logger.InfoContext(ctx, "discord replied to message",
		slog.String("guild_id", m.GuildID), slog.String("channel_id", m.ChannelID), slog.Int64("answer_id", out.AnswerID),
		slog.String("reason", string(out.Reason)), slog.Int("citations", len(out.Sources)), slog.String("scope", in.Scope.Key()),
		slog.Duration("took", a.now().Sub(received)))
	if m.GuildID != "" && out.AnswerID != 0 && err == nil {
		a.recheck(ctx, m.GuildID, aud, version, out.AnswerID)
	}
}

// errNotPosted says no part of a reply could be posted (replyTo logged why).
var errNotPosted = errors.New("reply not posted")

// replyTo posts out in m's channel as a reply to m: the first part with the embed and buttons,
// then the overflow parts. It returns the ids of the messages posted (up to the first that
// failed).
func (a *Adapter) replyTo(ctx context.Context, m *discordgo.Message, out rendered) []string {
	var ids []string
	for n, part := range out.Parts {
		send := &discordgo.MessageSend{Content: part, AllowedMentions: noMentions}
		if n == 0 {
			send.Embeds, send.Components, send.Reference = out.Embeds, out.Components, m.Reference()
		}
		msg, err := a.session.ChannelMessageSendComplex(m.ChannelID, send, discordgo.WithContext(ctx))
		if err != nil {
			a.logger.ErrorContext(ctx, "discord send reply", slog.String("channel_id", m.ChannelID), slog.Any("error", err))
			return ids
		}
		if msg != nil && msg.ID != "" {
			ids = append(ids, msg.ID)
		}
	}
	return ids
}

// dmRefusal logs why a DM asker is refused and returns the words for them, in the question's
// language.
func (a *Adapter) dmRefusal(ctx context.Context, userID, question string, err error) string {
	lang := rag.AnswerLang(question)
	if errors.Is(err, errNotMember) {
		a.logger.WarnContext(ctx, "discord DM refused: not a member of a configured guild", slog.String("user_id", userID))
		return textNotMember.in(lang)
	}
	a.logger.ErrorContext(ctx, "discord DM refused: membership unknown", slog.String("user_id", userID), slog.Any("error", err))
	return textMembershipUnknown.in(lang)
}

// refuseGuildMessage handles a message from a guild that is not configured: a message in a
// thread the bot owns (as far as it knows without asking Discord) gets a refusal, anything else
// is ignored. Neither reads Discord on that guild's behalf.
func (a *Adapter) refuseGuildMessage(ctx context.Context, m *discordgo.Message) {
	if !a.ownsKnownThread(m.ChannelID) {
		a.logger.DebugContext(ctx, "discord message from a guild that is not configured: ignored", slog.String("guild_id", m.GuildID))
		return
	}
	a.logger.WarnContext(ctx, "discord message refused: not an allowed guild", slog.String("guild_id", m.GuildID),
		slog.String("channel_id", m.ChannelID), slog.String("user_id", m.Author.ID))
	if strings.TrimSpace(m.Content) == "" || !a.firstDelivery(ctx, "discord:message:"+m.ID) {
		return
	}
	a.replyTo(ctx, m, rendered{Parts: []string{textNotAllowedGuild.in(rag.AnswerLang(m.Content))}})
}
