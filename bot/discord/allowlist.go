package discord

import (
	"context"
	"log/slog"
	"slices"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/rag"
)

// allowedGuild reports whether guildID is one of the configured guilds: the only guilds whose
// interactions and messages are answered, and whose members may ask in DMs.
func (a *Adapter) allowedGuild(guildID string) bool {
	return guildID != "" && slices.Contains(a.opts.GuildIDs, guildID)
}

// refusal returns the immediate answer to an interaction cita must not serve, or nil: one from
// a guild that is not configured, or from a private channel other than the bot's own DM (a
// group DM, or another user's DM, reached through a user-installed command), whose readers cita
// cannot know. It logs each refusal.
func (a *Adapter) refusal(ctx context.Context, i *discordgo.Interaction) *discordgo.InteractionResponse {
	var text string
	switch {
	case i.GuildID != "" && !a.allowedGuild(i.GuildID):
		text = textNotAllowedGuild.in(interactionLang(i))
	case i.GuildID == "" && i.Context == discordgo.InteractionContextPrivateChannel:
		text = textPrivateChannel.in(interactionLang(i))
	default:
		return nil
	}
	userID, _ := asker(i)
	a.logger.WarnContext(ctx, "discord interaction refused: not an allowed guild or the bot's DM",
		slog.String("interaction_id", i.ID), slog.String("guild_id", i.GuildID), slog.String("channel_id", i.ChannelID),
		slog.String("user_id", userID), slog.Int("context", int(i.Context)))
	return ephemeralMessage(text)
}

// interactionLang is the language to refuse an interaction in: the question's for /ask, the
// clicked message's for a button, else English. It never panics, even on malformed data.
func interactionLang(i *discordgo.Interaction) string {
	if data, ok := i.Data.(discordgo.ApplicationCommandInteractionData); ok {
		q, _ := askOptions(data)
		return rag.AnswerLang(q)
	}
	if i.Type == discordgo.InteractionMessageComponent && i.Message != nil {
		return rag.AnswerLang(messageText(i.Message))
	}
	return "en"
}

// onGuildCreate warns when the bot is in a guild that is not configured: it refuses everything
// there, which an operator may not expect.
func (a *Adapter) onGuildCreate(ctx context.Context, g *discordgo.Guild) {
	if !a.allowedGuild(g.ID) {
		a.logger.WarnContext(ctx, "discord: the bot is in a server that is not in guild_ids; it refuses every question there",
			slog.String("guild_id", g.ID), slog.String("guild_name", g.Name))
	}
}
