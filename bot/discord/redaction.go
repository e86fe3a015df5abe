package discord

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// pendingCheckEvery spaces one replica's retries of a channel's notices whose edit failed.
const pendingCheckEvery = time.Minute

// settleChannel withdraws the answers shown in the channel and its threads that one of aud's
// readers may not read, editing each into the notice, when those readers are not the ones
// settled and recorded last by any replica (aud.v), or are in doubt, and then settles them;
// force withdraws even when they look settled. The readers are recorded first (their scopes,
// which every later write of an answer there is checked against, and a new version, for answers
// in flight: see recheck) but settled only after the withdrawal succeeded, so that a withdrawal
// that fails, or a process that dies, leaves the next check withdrawing again. Notices whose
// edit failed before are retried at most once a minute per channel. It returns the channel's
// version after recording (-1 when it could not be recorded: with bot.ErrReadersMoved when aud
// was read before a change another replica recorded, and the caller must read it again) and the
// answers whose notice it showed. Without a store it does nothing.
func (a *Adapter) settleChannel(ctx context.Context, guildID string, aud channelAudience, force bool) (int64, []int64, error) {
	store := a.handler.Store()
	if store == nil {
		return aud.v.channel, nil, nil
	}
	attrs := []any{slog.String("guild_id", guildID), slog.String("channel_id", aud.channelID)}
	fingerprint := bot.ReadersFingerprint(aud.readers)
	unsettled := !bytes.Equal(fingerprint, aud.v.readers) || !bytes.Equal(fingerprint, aud.v.recorded) || aud.v.doubt
	recorded := false
	version := aud.v.channel
	var recordErr error
	if unsettled {
		changed, ver, err := store.RecordReaders(ctx, platform, guildID, aud.channelID, aud.readers, aud.v.channel)
		switch {
		case errors.Is(err, bot.ErrReadersMoved):
			version, recordErr = -1, err // withdraw with these readers anyway; the caller reads again
		case err != nil:
			a.logger.ErrorContext(ctx, "record discord channel viewers", append(attrs, slog.Any("error", err))...)
			version = -1 // withdraw anyway
		default:
			version, recorded = ver, true
		}
		if changed {
			a.logger.InfoContext(ctx, "discord channel viewers changed", append(attrs, slog.Int("kinds_of_viewers", len(aud.readers)),
				slog.String("scope", aud.scope.Key()), slog.Int64("version", version))...)
		}
	}
	readers := aud.readers
	if !unsettled && !force {
		if _, checked := a.pendingChecked.Get(guildID + "/" + aud.channelID); checked {
			return version, nil, nil
		}
		a.pendingChecked.Set(guildID+"/"+aud.channelID, struct{}{})
		readers = nil // only the notices still pending
	}
	reds, err := store.RedactUnreadable(ctx, platform, guildID, aud.channelID, readers)
	if err != nil {
		a.logger.ErrorContext(ctx, "withdraw discord answers; the channel's next check withdraws again", append(attrs, slog.Any("error", err))...)
		return version, nil, recordErr
	}
	if recorded {
		if err := store.ReadersSettled(ctx, platform, guildID, aud.channelID, fingerprint); err != nil {
			a.logger.ErrorContext(ctx, "settle discord channel viewers; the channel's next check withdraws again", append(attrs, slog.Any("error", err))...)
		}
	}
	var shown []int64
	for _, red := range reds {
		if a.showRedaction(ctx, red) {
			shown = append(shown, red.AnswerID)
		}
	}
	return version, shown, recordErr
}

// resolveChannel computes who sees channelID with au (for a thread, its parent) and settles
// them (settleChannel), computing again when another replica recorded a change meanwhile
// (bot.ErrReadersMoved), a few times. It returns the audience, the channel's version after
// recording (-1 when it could not be recorded) and the answers whose notice it showed, or an
// error when Discord or the database cannot say who sees the channel.
func (a *Adapter) resolveChannel(ctx context.Context, au *audience, guildID, channelID string, force bool) (channelAudience, int64, []int64, error) {
	for attempt := 1; ; attempt++ {
		aud, err := au.channelAudience(ctx, guildID, channelID)
		if err != nil {
			return channelAudience{}, -1, nil, err
		}
		version, shown, err := a.settleChannel(ctx, guildID, aud, force)
		if err == nil || attempt == resolveAttempts {
			return aud, version, shown, err
		}
	}
}

// resolveAttempts bounds how often resolveChannel computes a channel's viewers while other
// replicas keep recording changes.
const resolveAttempts = 3

// recheck closes the race of an answer in flight while the channel's viewers changed: when a
// replica recorded other viewers between this answer's check (version) and its posting, that
// replica's withdrawal may have run before the answer was saved, or before its message was
// recorded, so the channel is checked again with fresh viewers, and the answer itself, if
// withdrawn meanwhile, is edited into the notice.
func (a *Adapter) recheck(ctx context.Context, guildID string, aud channelAudience, version, answerID int64) {
	store := a.handler.Store()
	if store == nil || answerID == 0 {
		return
	}
	v, err := a.audience.versionsOf(ctx, guildID, aud.channelID)
	if err == nil && v.channel == version {
		return
	}
	_, _, shown, err := a.resolveChannel(ctx, a.audience, guildID, aud.channelID, true)
	if err != nil {
		a.logger.ErrorContext(ctx, "recheck discord channel after answering; its next question checks again",
			slog.String("channel_id", aud.channelID), slog.Any("error", err))
		return
	}
	for _, id := range shown {
		if id == answerID {
			return
		}
	}
	red, pending, err := store.PendingRedaction(ctx, answerID)
	if err != nil {
		a.logger.ErrorContext(ctx, "recheck discord answer", slog.Int64("answer_id", answerID), slog.Any("error", err))
		return
	}
	if pending {
		a.showRedaction(ctx, red)
	}
}

// showRedaction edits a withdrawn answer's first message into the notice, in the answer's
// language, with no sources and no buttons, and deletes its other parts, serialised with the
// writes of the answer's text (see bot.AnswerWrites). An edit that fails stays pending and is
// retried at the channel's next check. It reports whether the notice is now recorded as shown.
func (a *Adapter) showRedaction(ctx context.Context, red bot.Redaction) bool {
	attrs := []any{slog.String("channel_id", red.Conversation.Channel), slog.Int64("answer_id", red.AnswerID)}
	err := a.writes.Notice(ctx, red, func() error {
		ref, ok := parseReplyRef(red.ReplyRef)
		if !ok {
			// The message was never known (it could not be posted): nothing to edit.
			a.logger.WarnContext(ctx, "withdrawn discord answer has no message to edit", attrs...)
			return nil
		}
		notice := bot.RedactedNotice(red.Lang, a.dmHint(red.Lang))
		embeds, components := []*discordgo.MessageEmbed{}, []discordgo.MessageComponent{}
		edit := &discordgo.MessageEdit{
			ID: ref.messages[0], Channel: ref.channel, Content: &notice, Embeds: &embeds, Components: &components, AllowedMentions: noMentions,
		}
		if ref.v2 {
			// A V2 message has no content: the notice replaces its container and buttons.
			components = []discordgo.MessageComponent{discordgo.TextDisplay{Content: notice}}
			edit = &discordgo.MessageEdit{ID: ref.messages[0], Channel: ref.channel, Components: &components,
				Flags: discordgo.MessageFlagsIsComponentsV2, AllowedMentions: noMentions}
		}
		if _, err := a.session.ChannelMessageEditComplex(edit, discordgo.WithContext(ctx)); err != nil && !messageGone(err) {
			return fmt.Errorf("edit the message into the notice: %w", err)
		}
		for _, id := range ref.messages[1:] {
			if err := a.session.ChannelMessageDelete(ref.channel, id, discordgo.WithContext(ctx)); err != nil && !messageGone(err) {
				return fmt.Errorf("delete part %s: %w", id, err)
			}
		}
		a.logger.InfoContext(ctx, "withdrew discord answer", attrs...)
		return nil
	})
	if err != nil {
		a.logger.ErrorContext(ctx, "withdraw discord answer; retried at the channel's next check", append(attrs, slog.Any("error", err))...)
		return false
	}
	return true
}

// dmHint says how to ask the bot with one's own access, for the notice.
func (a *Adapter) dmHint(lang string) string {
	botID := a.opts.ApplicationID
	if u := a.session.State.User; u != nil && u.ID != "" {
		botID = u.ID
	}
	if lang == "es" {
		return "<@" + botID + "> o `/ask` con `private:True`"
	}
	return "<@" + botID + "> or `/ask` with `private:True`"
}

// messageGone reports whether Discord says a message cannot be edited because it, or its
// channel, no longer exists: nobody can read it any more.
func messageGone(err error) bool {
	var rest *discordgo.RESTError
	if !errors.As(err, &rest) {
		return false
	}
	if rest.Message != nil && (rest.Message.Code == discordgo.ErrCodeUnknownMessage || rest.Message.Code == discordgo.ErrCodeUnknownChannel) {
		return true
	}
	return rest.Response != nil && rest.Response.StatusCode == http.StatusNotFound
}

// replyRef is where an answer is shown: the channel (or thread) and the ids of its messages,
// the first carrying the sources and buttons. It is stored as the answer's ReplyRef,
// "channel:first,second,...".
type replyRef struct {
	channel  string
	messages []string
	// v2 says the first message is a Components V2 message: it can only be edited into
	// components, never back into text.
	v2 bool
}

// v2RefPrefix marks the stored form of a Components V2 answer (channel ids are digits).
const v2RefPrefix = "v2/"

// String is the stored form ("channel:id,id", "v2/channel:id"); "" when no message is known.
func (r replyRef) String() string {
	if r.channel == "" || len(r.messages) == 0 {
		return ""
	}
	s := r.channel + ":" + strings.Join(r.messages, ",")
	if r.v2 {
		s = v2RefPrefix + s
	}
	return s
}

// parseReplyRef reads a stored ReplyRef; ok is false when it names no message.
func parseReplyRef(s string) (replyRef, bool) {
	s, v2 := strings.CutPrefix(s, v2RefPrefix)
	ch, list, found := strings.Cut(s, ":")
	if !found || ch == "" || list == "" {
		return replyRef{}, false
	}
	ref := replyRef{channel: ch, messages: strings.Split(list, ","), v2: v2}
	for _, m := range ref.messages {
		if m == "" {
			return replyRef{}, false
		}
	}
	return ref, true
}
