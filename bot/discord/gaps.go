package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/snowflake"
)

// shareGap records the clicker's consent to share their question; the store refuses anyone but
// its asker, and any reply but a declined or hedged one.
func (a *Adapter) shareGap(ctx context.Context, i *discordgo.Interaction, userID string, answerID int64) {
	if a.opts.Gaps == nil {
		a.editReason(ctx, i, bot.ShareGapReply("en", bot.ErrNotShareable))
		return
	}
	err := a.opts.Gaps.ShareGap(ctx, answerID, userID)
	switch {
	case err == nil:
		a.logger.InfoContext(ctx, "gap question shared", slog.Int64("answer_id", answerID))
	case !errors.Is(err, bot.ErrNotShareable):
		a.logger.ErrorContext(ctx, "share gap question", slog.Int64("answer_id", answerID), slog.Any("error", err))
	}
	a.editReason(ctx, i, bot.ShareGapReply("en", err))
}

var _ bot.GapPoster = (*Adapter)(nil)

// GapPlace implements bot.GapPoster: a public question's follow-up goes where its conversation
// continues (its thread when one was opened, else the channel, as a reply to the answer),
// read by that channel's viewers now; a shared one to its asker's DM, read by the asker alone.
func (a *Adapter) GapPlace(ctx context.Context, g bot.OpenGap) (bot.GapPlace, error) {
	if g.Shared {
		scope, err := a.audience.dmScope(ctx, g.Asker)
		if err != nil {
			return bot.GapPlace{}, err
		}
		ch, err := a.session.UserChannelCreate(g.Asker, discordgo.WithContext(ctx))
		if err != nil {
			return bot.GapPlace{}, fmt.Errorf("discord open DM with %s: %w", g.Asker, err)
		}
		return bot.GapPlace{Conversation: conversationKey("", ch.ID, ""), Scope: scope, Audience: bot.AudiencePrivate}, nil
	}
	target := g.Conversation.Channel
	if g.Conversation.Thread != "" && snowflake.Valid(g.Conversation.Thread) {
		if ch, err := a.audience.channel(ctx, g.Conversation.Thread); err == nil && ch.IsThread() {
			target = ch.ID
		}
	}
	aud, _, _, err := a.resolveChannel(ctx, a.audience, g.Conversation.Workspace, target, false)
	if err != nil {
		return bot.GapPlace{}, err
	}
	return bot.GapPlace{Conversation: g.Conversation, Scope: aud.scope, Audience: bot.AudienceChannel, Public: aud.public}, nil
}

// PostGapFollowUp implements bot.GapPoster: the answer, introduced as the answer to the question
// asked before, in text layout, each write checked against the answer's withdrawal and the
// channel's audience like any answer's (writeAnswer), and recorded where it is shown.
func (a *Adapter) PostGapFollowUp(ctx context.Context, place bot.GapPlace, g bot.OpenGap, out bot.Outgoing) error {
	out.Text = bot.GapFollowUpIntro(out.Lang, g.Question, g.Shared) + "\n\n" + out.Text
	r := renderReply(withDiscordHint(out), "", false, a.display())
	conv := place.Conversation
	channel := conv.Channel
	var ref *discordgo.MessageReference
	if conv.Thread != "" && snowflake.Valid(conv.Thread) {
		if ch, err := a.audience.channel(ctx, conv.Thread); err == nil && ch.IsThread() {
			channel = ch.ID
		} else {
			ref = &discordgo.MessageReference{MessageID: conv.Thread, ChannelID: conv.Channel, FailIfNotExists: new(bool)}
		}
	}
	return a.writeAnswer(ctx, out.AnswerID, func() error {
		var ids []string
		for n, part := range r.Parts {
			send := &discordgo.MessageSend{Content: part, AllowedMentions: noMentions}
			if n == 0 {
				send.Embeds, send.Components, send.Reference = r.Embeds, r.Components, ref
			}
			msg, err := a.session.ChannelMessageSendComplex(channel, send, discordgo.WithContext(ctx))
			if err != nil {
				if len(ids) == 0 {
					return fmt.Errorf("discord post follow-up in %s: %w", channel, err)
				}
				break
			}
			ids = append(ids, msg.ID)
		}
		if conv.Workspace != "" && out.AnswerID != 0 {
			a.recordReply(ctx, out.AnswerID, "", replyRef{channel: channel, messages: ids})
		}
		return nil
	})
}

var _ bot.GapDigestPoster = (*Adapter)(nil)

// PostGapDigest implements bot.GapDigestPoster: the digest is built for the channel's viewers
// now and its guild's questions, then posted with no mention.
func (a *Adapter) PostGapDigest(ctx context.Context, channel string, build bot.DigestBuilder) error {
	ch, err := a.audience.channel(ctx, channel)
	if err != nil {
		return fmt.Errorf("discord channel %s: %w", channel, err)
	}
	aud, _, _, err := a.resolveChannel(ctx, a.audience, ch.GuildID, channel, false)
	if err != nil {
		return fmt.Errorf("who sees %s: %w", channel, err)
	}
	text, err := build(ctx, aud.scope, platform, ch.GuildID, true) // every viewer is a member of the guild
	if err != nil {
		return err
	}
	for _, part := range splitText(escapeMarkdown(text), maxContent) {
		if _, err := a.session.ChannelMessageSendComplex(channel, &discordgo.MessageSend{Content: part, AllowedMentions: noMentions},
			discordgo.WithContext(ctx)); err != nil {
			return fmt.Errorf("discord post digest in %s: %w", channel, err)
		}
	}
	return nil
}
