package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// answerAsk completes a deferred /ask: it works out the audience's scope and the conversation,
// lets the bot handler answer, and edits the deferred response into the reply (overflow text as
// follow-ups). Every outcome edits the response: an answer, an abstention or a reason (or, when
// Discord refuses, a short error follows up: finalEdit). A visible
// answer in a channel first withdraws earlier answers its viewers may no longer read, records
// where it is shown, and checks again after posting when the viewers changed meanwhile.
func (a *Adapter) answerAsk(ctx context.Context, i *discordgo.Interaction, question string, private bool, received time.Time) {
	if !a.firstDelivery(ctx, "discord:interaction:"+i.ID) {
		return
	}
	userID, roles := asker(i)
	in := bot.Incoming{UserID: userID, Text: question, ReceivedAt: received}
	visible := !private && i.GuildID != ""
	var aud channelAudience
	var version int64
	switch {
	case i.GuildID == "":
		scope, err := a.audience.dmScope(ctx, userID)
		if err != nil {
			a.editReason(ctx, i, a.dmRefusal(ctx, userID, question, err))
			return
		}
		in.Conversation = conversationKey("", i.ChannelID, "")
		in.Audience, in.Scope = bot.AudiencePrivate, scope
	case private:
		in.Conversation = a.keyFor(ctx, i.GuildID, i.ChannelID, "")
		in.Audience, in.Ephemeral = bot.AudiencePrivate, true
		in.Scope = a.audience.askerScope(ctx, i.GuildID, userID, roles)
	default:
		var err error
		if aud, version, _, err = a.resolveChannel(ctx, a.audience, i.GuildID, i.ChannelID, false); err != nil {
			a.logger.WarnContext(ctx, "discord channel audience", slog.String("channel_id", i.ChannelID), slog.Any("error", err))
			a.editReason(ctx, i, channelRefusal(err, rag.AnswerLang(question)))
			return
		}
		in.Audience, in.Scope, in.Public = bot.AudienceChannel, aud.scope, aud.public
		if aud.thread != nil {
			in.Conversation = conversationKey(i.GuildID, aud.channelID, aud.thread.ID)
		} else {
			msgID, known := a.originalMessageID(ctx, i)
			in.Conversation = conversationKey(i.GuildID, i.ChannelID, msgID)
			if known {
				in.ReplyRef = replyRef{channel: i.ChannelID, messages: []string{msgID}}.String()
			}
		}
	}
	out := a.handler.Handle(ctx, in, nil)
	visibleInChannel := visible && aud.thread == nil
	threadButton := visibleInChannel && out.FromPipeline() && a.opts.Threads == ThreadsButton
	var msg *discordgo.Message
	var parts []string
	components, v2 := layoutV2(withDiscordHint(out), questionHeader(question), threadButton, a.display())
	edit := func() error {
		var err error
		if v2 {
			msg, err = a.editOriginalV2(ctx, i, components, private)
		} else {
			r := renderReply(withDiscordHint(out), questionHeader(question), threadButton, a.display())
			msg, err = a.editOriginal(ctx, i, &discordgo.WebhookEdit{
				Content: &r.Parts[0], Embeds: &r.Embeds, Components: &r.Components, AllowedMentions: noMentions,
			})
			if err == nil {
				parts = a.sendFollowUps(ctx, i, r.Parts[1:], private)
			}
		}
		if err == nil && visible && out.AnswerID != 0 && msg != nil && msg.ID != "" {
			// Recorded before the write is counted, so that a withdrawal edits these messages.
			a.recordReply(ctx, out.AnswerID, in.ReplyRef, replyRef{channel: i.ChannelID, messages: append([]string{msg.ID}, parts...), v2: v2})
		}
		return err
	}
	err := a.finalEdit(ctx, i, out.Lang, func() error { return a.writeAnswer(ctx, out.AnswerID, edit) })
	switch {
	case errors.Is(err, bot.ErrWriteWithdrawn):
		a.trace("final", received)
		return
	case errors.Is(err, bot.ErrWriteUnchecked):
		a.logger.ErrorContext(ctx, "check discord answer before showing it; showing a short error instead", slog.String("interaction_id", i.ID), slog.Any("error", err))
		a.editReason(ctx, i, notRecordedText(out.Lang))
		return
	case err != nil:
		return // finalEdit told the asker
	}
	a.trace("final", received)
	a.logger.InfoContext(ctx, "discord replied",
		slog.String("interaction_id", i.ID), slog.String("guild_id", i.GuildID), slog.String("channel_id", i.ChannelID),
		slog.Int64("answer_id", out.AnswerID), slog.String("reason", string(out.Reason)), slog.Int("citations", len(out.Sources)),
		slog.Bool("private", private), slog.Bool("components_v2", v2), slog.String("scope", in.Scope.Key()), slog.Duration("took", a.now().Sub(received)))
	if visible && out.AnswerID != 0 && msg != nil && msg.ID != "" {
		a.recheck(ctx, i.GuildID, aud, version, out.AnswerID)
	}
	if visibleInChannel && out.FromPipeline() && a.opts.Threads == ThreadsAuto && msg != nil && msg.ID != "" {
		if _, err := a.openThread(ctx, i.ChannelID, msg.ID, question); err != nil {
			a.logger.WarnContext(ctx, "discord open thread", slog.String("message_id", msg.ID), slog.Any("error", err))
		}
	}
}

// recordReply records where answer id is shown when that differs from what was recorded with
// it (known), so that it can be withdrawn in place.
func (a *Adapter) recordReply(ctx context.Context, id int64, known string, shown replyRef) {
	store := a.handler.Store()
	if store == nil || shown.String() == known {
		return
	}
	if err := store.SetReplyRef(ctx, id, shown.String()); err != nil {
		a.logger.ErrorContext(ctx, "record discord answer message; it cannot be withdrawn in place", slog.Int64("answer_id", id), slog.Any("error", err))
	}
}

// keyFor is the conversation of a message in channelID: inside a thread {parent, thread};
// elsewhere {channel, threadID}, threadID being the answer message's id for a visible answer
// and empty for an ephemeral one.
func (a *Adapter) keyFor(ctx context.Context, guildID, channelID, threadID string) bot.ConversationKey {
	if guildID == "" {
		return conversationKey("", channelID, "")
	}
	if ch, err := a.audience.channel(ctx, channelID); err == nil && ch.IsThread() && ch.ParentID != "" {
		return conversationKey(guildID, ch.ParentID, ch.ID)
	}
	return conversationKey(guildID, channelID, threadID)
}

// originalMessageID returns the id of the deferred response's message: a visible answer's
// conversation is keyed by it because a thread opened from the answer gets the same id. On
// failure it falls back to the interaction's id (the conversation then cannot continue in a
// thread), and known is false.
func (a *Adapter) originalMessageID(ctx context.Context, i *discordgo.Interaction) (id string, known bool) {
	msg, err := a.withWebhookRetry(ctx, func() (*discordgo.Message, error) {
		return a.session.InteractionResponse(i, discordgo.WithContext(ctx))
	})
	if err != nil || msg == nil || msg.ID == "" {
		a.logger.WarnContext(ctx, "discord read deferred response", slog.String("interaction_id", i.ID), slog.Any("error", err))
		return "interaction-" + i.ID, false
	}
	return msg.ID, true
}

// firstDelivery reports whether an event is seen for the first time (a replayed interaction or
// a message redelivered after a gateway resume is skipped). A store failure lets it through.
func (a *Adapter) firstDelivery(ctx context.Context, eventID string) bool {
	store := a.handler.Store()
	if store == nil {
		return true
	}
	first, err := store.MarkEvent(ctx, eventID)
	if err != nil {
		a.logger.WarnContext(ctx, "discord dedupe event", slog.String("event_id", eventID), slog.Any("error", err))
		return true
	}
	if !first {
		a.logger.InfoContext(ctx, "discord duplicate event skipped", slog.String("event_id", eventID))
	}
	return first
}

// questionHeader quotes the question above the answer, on one line.
func questionHeader(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if units(q) > 300 {
		q = truncateUnits(q, 299) + "…"
	}
	return "> " + escapeMarkdown(q) + "\n"
}

// editOriginal edits the deferred response, retrying while Discord does not know it yet (the
// HTTP endpoint's reply may still be in flight).
func (a *Adapter) editOriginal(ctx context.Context, i *discordgo.Interaction, edit *discordgo.WebhookEdit) (*discordgo.Message, error) {
	return a.withWebhookRetry(ctx, func() (*discordgo.Message, error) {
		return a.session.InteractionResponseEdit(i, edit, discordgo.WithContext(ctx))
	})
}

// editOriginalV2 edits the deferred response into a Components V2 message (see layoutV2),
// retrying as editOriginal does.
func (a *Adapter) editOriginalV2(ctx context.Context, i *discordgo.Interaction, components []discordgo.MessageComponent, ephemeral bool) (*discordgo.Message, error) {
	body := v2Edit{Flags: v2Flags(ephemeral), Components: components, AllowedMentions: noMentions}
	return a.withWebhookRetry(ctx, func() (*discordgo.Message, error) {
		raw, err := a.session.RequestWithBucketID(http.MethodPatch, discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original"), body,
			discordgo.EndpointWebhookToken("", ""), discordgo.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		var msg discordgo.Message
		if err := json.Unmarshal(raw, &msg); err != nil {
			return nil, fmt.Errorf("read edited message: %w", err)
		}
		return &msg, nil
	})
}

func (a *Adapter) withWebhookRetry(ctx context.Context, call func() (*discordgo.Message, error)) (*discordgo.Message, error) {
	var msg *discordgo.Message
	var err error
	for attempt := range 5 {
		msg, err = call()
		var rest *discordgo.RESTError
		if err == nil || !errors.As(err, &rest) || rest.Response == nil || rest.Response.StatusCode != http.StatusNotFound {
			return msg, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	return msg, err
}

// sendFollowUps posts parts after the original response and returns the ids of the messages
// posted (up to the first that failed).
func (a *Adapter) sendFollowUps(ctx context.Context, i *discordgo.Interaction, parts []string, ephemeral bool) []string {
	var flags discordgo.MessageFlags
	if ephemeral {
		flags = discordgo.MessageFlagsEphemeral
	}
	var ids []string
	for _, p := range parts {
		msg, err := a.session.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: p, Flags: flags, AllowedMentions: noMentions}, discordgo.WithContext(ctx))
		if err != nil {
			a.logger.ErrorContext(ctx, "discord follow-up", slog.String("interaction_id", i.ID), slog.Any("error", err))
			return ids
		}
		if msg != nil && msg.ID != "" {
			ids = append(ids, msg.ID)
		}
	}
	return ids
}

// editWithComponents turns the deferred response into text with components (buttons), a final
// edit like any other (finalEdit), so no interaction is left thinking.
func (a *Adapter) editWithComponents(ctx context.Context, i *discordgo.Interaction, text string, components []discordgo.MessageComponent) {
	_ = a.finalEdit(ctx, i, interactionLang(i), func() error {
		_, err := a.editOriginal(ctx, i, &discordgo.WebhookEdit{Content: &text, Components: &components, AllowedMentions: noMentions})
		return err
	})
}

// editReason turns the deferred response into a reason, so no interaction is left thinking
// (finalEdit).
func (a *Adapter) editReason(ctx context.Context, i *discordgo.Interaction, text string) {
	empty := []discordgo.MessageComponent{}
	_ = a.finalEdit(ctx, i, interactionLang(i), func() error {
		_, err := a.editOriginal(ctx, i, &discordgo.WebhookEdit{Content: &text, Components: &empty, AllowedMentions: noMentions})
		return err
	})
}
