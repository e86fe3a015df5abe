package discord

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/snowflake"
	"github.com/citahq/cita/rag"
)

var _ bot.NoticePoster = (*Adapter)(nil)

// PostNotice implements bot.NoticePoster: it posts the source-change notice where the
// conversation continues. A visible answer's conversation is keyed by the answer message's id,
// which is also the id of a thread opened from it: the notice goes in that thread when it
// exists, else in the channel as a reply to the answer (or plainly when the answer's message is
// unknown or gone). A DM has no thread: the notice goes in the DM. Titles are escaped and no
// mention pings anyone.
//
// A document is named only when everyone who may see the notice, now or later, may read it
// (bot.SourceNotice.NamedFor): a notice is never withdrawn, and whoever is let into a guild
// channel later holds at least what a member with no role holds, so in a guild channel it names
// only what that member may read; in a DM, what its asker may read now (their groups resolved
// from Discord for the notice, never from a cache). When that cannot be resolved, nothing is
// named.
func (a *Adapter) PostNotice(ctx context.Context, conv bot.ConversationKey, notice bot.SourceNotice) error {
	notice = notice.NamedFor(a.noticeReaders(ctx, conv, notice.Asker))
	text := bot.SourceNoticeText(notice, escapeMarkdown, truncateUnits)
	msg := &discordgo.MessageSend{Content: truncateUnits(text, maxContent), AllowedMentions: noMentions}
	channel := conv.Channel
	if conv.Thread != "" && snowflake.Valid(conv.Thread) {
		if ch, err := a.session.Channel(conv.Thread, discordgo.WithContext(ctx)); err == nil && ch.IsThread() {
			channel = ch.ID
		} else {
			msg.Reference = &discordgo.MessageReference{MessageID: conv.Thread, ChannelID: conv.Channel, FailIfNotExists: new(bool)}
		}
	}
	if _, err := a.session.ChannelMessageSendComplex(channel, msg, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("discord post notice in %s: %w", channel, err)
	}
	return nil
}

// noticeReaders returns the least scopes of everyone who may see conv, now or later: a guild
// member with no role (every viewer, now or later, holds at least that), or a DM's asker; nil
// when Discord or the database cannot say.
func (a *Adapter) noticeReaders(ctx context.Context, conv bot.ConversationKey, asker string) []rag.Scope {
	// Read from Discord now, never from the caches, as the sweep does.
	var store bot.Audiences
	if s := a.handler.Store(); s != nil {
		store = s
	}
	fresh := newAudience(a.session, store, a.audience.access, a.opts.GuildIDs, true, a.logger, a.now)
	var scope rag.Scope
	var err error
	if conv.Workspace == "" {
		scope, err = fresh.dmScope(ctx, asker)
	} else {
		var v versions
		if v, err = fresh.versionsOf(ctx, conv.Workspace, ""); err == nil {
			var g *discordgo.Guild
			if g, err = fresh.guild(ctx, v, conv.Workspace); err == nil {
				scope = fresh.access.scopeFor(conv.Workspace, "", nil, g.Roles)
			}
		}
	}
	if err != nil {
		a.logger.WarnContext(ctx, "resolve who may see a discord conversation for a source-change notice; it names no document",
			slog.String("channel_id", conv.Channel), slog.Any("error", err))
		return nil
	}
	return []rag.Scope{scope}
}
