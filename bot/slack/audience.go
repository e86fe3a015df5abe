package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// audience is who can read a channel, now or later, as far as access goes.
type audience struct {
	// readers are the distinct scopes of everyone who can read the channel: its human members
	// and, for a public channel, every full member of the workspace. An empty scope is a reader
	// who may read nothing (unmapped, or unknown).
	readers []rag.Scope
	// scope is what a reply there may use: the groups every reader has, within the channel's
	// pinned groups when it has some. Empty when the readers share no group.
	scope   rag.Scope
	public  bool
	members int
	// outsiders: someone who reads it is not a full member of the workspace (a guest), or the
	// channel is shared beyond it: they could not read every public channel.
	outsiders bool
}

// channelAudience asks Slack who reads channel now (conversations.info and every page of
// conversations.members, never cached: a membership change that no event announced still
// counts at once), adds whoever joined by an event the list does not show yet (withJoiners),
// and resolves their access from the cached directory.
func (a *Adapter) channelAudience(ctx context.Context, v versions, channel string) (audience, error) {
	var info *slack.Channel
	err := withRetry(ctx, func() (err error) {
		info, err = a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		return err
	})
	if err != nil {
		return audience{}, fmt.Errorf("conversations.info %s: %w", channel, err)
	}
	asked := time.Now()
	members, err := a.channelMembers(ctx, channel)
	if err != nil {
		return audience{}, err
	}
	if members, err = a.withJoiners(ctx, channel, members, asked); err != nil {
		return audience{}, err
	}
	roles, err := a.userGroups(ctx, v)
	if err != nil {
		return audience{}, err
	}
	aud := audience{public: !info.IsPrivate && !info.IsMpIM && !info.IsIM, members: len(members)}
	var readers []rag.Scope
	if aud.public {
		full, err := a.fullMemberScopes(ctx, v)
		if err != nil {
			return audience{}, err
		}
		readers = append(readers, full...)
		if shared(info) {
			// Public in other workspaces or organisations too: readers cita cannot list.
			readers = append(readers, rag.Scope{})
			aud.outsiders = true
		}
	}
	for _, m := range members {
		p, err := a.person(ctx, v, m)
		if err != nil {
			return audience{}, err
		}
		if p.reader() {
			readers = append(readers, a.scopeOf(p, roles))
			aud.outsiders = aud.outsiders || !p.full()
		}
	}
	aud.readers = bot.DistinctScopes(readers)
	aud.scope = bot.IntersectScopes(aud.readers)
	if pin, ok := a.pins[channel]; ok {
		aud.scope = aud.scope.Intersect(pin)
	}
	return aud, nil
}

// withJoiners returns members, the complete list Slack gave when asked at listed, with the
// channel's recent joiners (bot.Audiences.ChannelJoiners) that it does not show yet: Slack's
// conversations.members trails member_joined_channel, and whoever joined reads the history at
// once. Joiners the list shows are forgotten, and so are those it still does not show more than
// Options.JoinerListGrace (bot.JoinerListGrace by default) after they joined (they left, and the member_left_channel was lost); a
// failure to forget only keeps them counted.
func (a *Adapter) withJoiners(ctx context.Context, channel string, members []string, listed time.Time) ([]string, error) {
	joiners, err := a.opts.Store.ChannelJoiners(ctx, platform, a.teamID, channel, bot.JoinerTTL)
	if err != nil {
		return nil, err
	}
	var forget []string
	for _, j := range joiners {
		switch {
		case slices.Contains(members, j.UserID), listed.Sub(j.Joined) > a.opts.JoinerListGrace:
			forget = append(forget, j.UserID)
		default:
			members = append(members, j.UserID)
		}
	}
	if err := a.opts.Store.ForgetJoiners(ctx, platform, a.teamID, channel, forget); err != nil {
		a.logger.WarnContext(ctx, "forget slack joiners the member list shows or left", slog.String("channel_id", channel), slog.Any("error", err))
	}
	return members, nil
}

// channelMembers returns every member of channel (conversations.members, all pages).
func (a *Adapter) channelMembers(ctx context.Context, channel string) ([]string, error) {
	var members []string
	cursor := ""
	for {
		var page []string
		err := withRetry(ctx, func() (err error) {
			page, cursor, err = a.api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{ChannelID: channel, Cursor: cursor, Limit: memberPageSize})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("conversations.members %s: %w", channel, err)
		}
		members = append(members, page...)
		if cursor == "" {
			return members, nil
		}
	}
}

// pendingCheckEvery spaces one replica's retries of a channel's failed notices.
const pendingCheckEvery = time.Minute

// settleChannel withdraws the answers shown in channel that one of aud's readers may not read
// when those readers are not the ones settled and recorded last by any replica (v.readers,
// v.recorded), or are in doubt, and then settles them; force withdraws even when they look settled. The readers are recorded
// first (their scopes, which every later write of an answer there is checked against, and a new
// version, for answers in flight on other replicas: see recheckChannel) but settled only after
// the withdrawal succeeded, so that a withdrawal that fails, or a process that dies, leaves the
// next check withdrawing again. Notices whose edit failed before are retried at most once a
// minute per channel. It returns the channel's version after recording, or -1 when it could not
// be recorded: with bot.ErrReadersMoved when aud was read before a change another replica
// recorded (the caller must read the readers again before answering from them).
func (a *Adapter) settleChannel(ctx context.Context, team, channel string, v versions, aud audience, force bool) (int64, error) {
	fingerprint := bot.ReadersFingerprint(aud.readers)
	unsettled := !bytes.Equal(fingerprint, v.readers) || !bytes.Equal(fingerprint, v.recorded) || v.doubt
	recorded := false
	version := v.channel
	var recordErr error
	if unsettled {
		changed, ver, err := a.opts.Store.RecordReaders(ctx, platform, a.teamID, channel, aud.readers, v.channel)
		switch {
		case errors.Is(err, bot.ErrReadersMoved):
			version, recordErr = -1, err // withdraw with these readers anyway; the caller reads again
		case err != nil:
			a.logger.ErrorContext(ctx, "record slack channel readers", slog.String("channel_id", channel), slog.Any("error", err))
			version = -1 // withdraw anyway
		default:
			version, recorded = ver, true
		}
		if changed {
			a.logger.InfoContext(ctx, "slack channel readers changed", slog.String("channel_id", channel), slog.Int("members", aud.members),
				slog.Bool("public", aud.public), slog.String("scope", aud.scope.Key()), slog.Int64("version", version))
		}
	}
	readers := aud.readers
	if !unsettled && !force {
		if !a.pendingDue(channel) {
			return version, nil
		}
		readers = nil // only the notices still pending
	}
	reds, err := a.opts.Store.RedactUnreadable(ctx, platform, team, channel, readers)
	if err != nil {
		a.logger.ErrorContext(ctx, "withdraw slack answers; the channel's next check withdraws again", slog.String("channel_id", channel), slog.Any("error", err))
		return version, recordErr
	}
	if recorded {
		if err := a.opts.Store.ReadersSettled(ctx, platform, a.teamID, channel, fingerprint); err != nil {
			a.logger.ErrorContext(ctx, "settle slack channel readers; the channel's next check withdraws again", slog.String("channel_id", channel), slog.Any("error", err))
		}
	}
	for _, red := range reds {
		a.showRedaction(ctx, red)
	}
	return version, recordErr
}

// resolveChannel reads who reads channel now and settles them (settleChannel), reading again
// when another replica recorded a change meanwhile (bot.ErrReadersMoved), a few times. It
// returns the audience and the channel's version after recording (-1 when it could not be
// recorded), or an error when Slack or the database cannot say who reads the channel.
func (a *Adapter) resolveChannel(ctx context.Context, team, channel string, force bool) (audience, int64, error) {
	for attempt := 1; ; attempt++ {
		v, err := a.audienceVersions(ctx, channel)
		if err != nil {
			return audience{}, -1, fmt.Errorf("read audience versions: %w", err)
		}
		aud, err := a.channelAudience(ctx, v, channel)
		if err != nil {
			return audience{}, -1, err
		}
		version, err := a.settleChannel(ctx, team, channel, v, aud, force)
		if err == nil || attempt == resolveAttempts {
			return aud, version, err
		}
	}
}

// resolveAttempts bounds how often resolveChannel reads a channel's readers while other
// replicas keep recording changes.
const resolveAttempts = 3

// pendingDue reports whether this replica should look for channel's pending notices now.
func (a *Adapter) pendingDue(channel string) bool {
	if _, ok := a.pendingChecked.Get(channel); ok {
		return false
	}
	a.pendingChecked.Set(channel, struct{}{})
	return true
}

// showRedaction edits a withdrawn answer's message into the notice, in the answer's language,
// offering a DM with the bot, serialised with the writes of the answer's text (see
// bot.AnswerWrites). An edit that fails stays pending and is retried at the channel's next
// check.
func (a *Adapter) showRedaction(ctx context.Context, red bot.Redaction) {
	attrs := []any{slog.String("channel_id", red.Conversation.Channel), slog.Int64("answer_id", red.AnswerID)}
	err := a.writes.Notice(ctx, red, func() error {
		if red.ReplyRef == "" {
			// The message was never known (it could not be posted): nothing to edit.
			a.logger.WarnContext(ctx, "withdrawn slack answer has no message to edit", attrs...)
			return nil
		}
		text := bot.RedactedNotice(red.Lang, "<@"+a.botUserID+">")
		block := slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
		err := withRetry(ctx, func() error {
			_, _, _, err := a.api.UpdateMessageContext(ctx, red.Conversation.Channel, red.ReplyRef,
				slack.MsgOptionText(text, false), slack.MsgOptionBlocks(block))
			return err
		})
		if err != nil && !messageGone(err) {
			return fmt.Errorf("edit the message into the notice: %w", err)
		}
		a.logger.InfoContext(ctx, "withdrew slack answer", attrs...)
		return nil
	})
	if err != nil {
		a.logger.ErrorContext(ctx, "withdraw slack answer; retried at the channel's next check", append(attrs, slog.Any("error", err))...)
	}
}

// messageGone reports whether Slack says the message cannot be edited because it no longer
// exists: nobody can read it any more.
func messageGone(err error) bool {
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	return se.Err == "message_not_found" || se.Err == "channel_not_found"
}

// plainPublic reports whether Slack says channel is public and not shared with other workspaces;
// false when it cannot tell.
func (a *Adapter) plainPublic(ctx context.Context, channel string) bool {
	var info *slack.Channel
	err := withRetry(ctx, func() (err error) {
		info, err = a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		return err
	})
	return err == nil && !info.IsPrivate && !info.IsMpIM && !info.IsIM && !shared(info)
}

// shared reports whether a channel is shared with other workspaces or organisations.
func shared(info *slack.Channel) bool {
	return info.IsShared || info.IsExtShared || info.IsOrgShared || info.IsPendingExtShared
}
