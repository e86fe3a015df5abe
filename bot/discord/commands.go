package discord

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bwmarrin/discordgo"
)

// The /ask command and its options.
const (
	askCommand  = "ask"
	optQuestion = "question"
	optPrivate  = "private"
)

// askCommandDef is /ask as registered in each configured guild.
func askCommandDef() *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Name:        askCommand,
		Description: "Ask a question about the organisation's documents; the answer cites its sources.",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionString, Name: optQuestion, Description: "Your question", Required: true, MaxLength: 1000},
			{Type: discordgo.ApplicationCommandOptionBoolean, Name: optPrivate, Description: "Only you see the answer, from the documents you may read"},
		},
	}
}

// guildCommands is the full set registered in a configured guild; a bulk overwrite makes
// registration idempotent and removes commands an older version left behind.
func guildCommands() []*discordgo.ApplicationCommand {
	return []*discordgo.ApplicationCommand{askCommandDef()}
}

// globalCommands is the full set registered globally: /ask usable only in a DM with the bot
// (where the asker's membership of a configured guild is looked up) and only when the app is
// installed in a guild, so no other guild and no group DM sees a global /ask.
func globalCommands() []*discordgo.ApplicationCommand {
	ask := askCommandDef()
	ask.Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextBotDM}
	ask.IntegrationTypes = &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	return []*discordgo.ApplicationCommand{ask}
}

// RegisterCommands overwrites the application's commands: /ask in each configured guild
// (visible at once), the global set with the DM-only /ask (replacing a global /ask an earlier
// version registered for every guild), and it removes the commands of guilds the bot is in
// that are no longer configured. It returns the first registration error; failing to clean an
// unconfigured guild is only logged (such guilds are refused anyway).
func (a *Adapter) RegisterCommands(ctx context.Context) error {
	for _, guildID := range a.opts.GuildIDs {
		if err := a.overwriteCommands(ctx, guildID, guildCommands()); err != nil {
			return err
		}
	}
	if err := a.overwriteCommands(ctx, "", globalCommands()); err != nil {
		return err
	}
	a.removeStaleGuildCommands(ctx)
	return nil
}

func (a *Adapter) overwriteCommands(ctx context.Context, guildID string, cmds []*discordgo.ApplicationCommand) error {
	created, err := a.session.ApplicationCommandBulkOverwrite(a.opts.ApplicationID, guildID, cmds, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("register commands %s: %w", where(guildID), err)
	}
	a.logger.InfoContext(ctx, "discord commands registered", slog.String("guild_id", guildID), slog.Int("commands", len(created)))
	return nil
}

func where(guildID string) string {
	if guildID == "" {
		return "globally"
	}
	return "in guild " + guildID
}

// guildPage is how many of the bot's guilds one listing returns (Discord's maximum).
const guildPage = 200

// removeStaleGuildCommands walks the guilds the bot is in and empties the command list of each
// one that is not configured and still has commands. Only this application's commands are
// touched. Errors are logged and the walk goes on.
func (a *Adapter) removeStaleGuildCommands(ctx context.Context) {
	after := ""
	for {
		guilds, err := a.session.UserGuilds(guildPage, "", after, false, discordgo.WithContext(ctx))
		if err != nil {
			a.logger.WarnContext(ctx, "discord list the bot's guilds (stale commands not removed)", slog.Any("error", err))
			return
		}
		for _, g := range guilds {
			if !a.allowedGuild(g.ID) {
				a.removeGuildCommands(ctx, g)
			}
		}
		if len(guilds) < guildPage {
			return
		}
		after = guilds[len(guilds)-1].ID
	}
}

func (a *Adapter) removeGuildCommands(ctx context.Context, g *discordgo.UserGuild) {
	log := a.logger.With(slog.String("guild_id", g.ID), slog.String("guild_name", g.Name))
	log.WarnContext(ctx, "discord: the bot is in a server that is not in guild_ids; it refuses every question there")
	cmds, err := a.session.ApplicationCommands(a.opts.ApplicationID, g.ID, discordgo.WithContext(ctx))
	if err != nil {
		log.WarnContext(ctx, "discord list commands of an unconfigured guild", slog.Any("error", err))
		return
	}
	if len(cmds) == 0 {
		return
	}
	if _, err := a.session.ApplicationCommandBulkOverwrite(a.opts.ApplicationID, g.ID, []*discordgo.ApplicationCommand{}, discordgo.WithContext(ctx)); err != nil {
		log.WarnContext(ctx, "discord remove commands of an unconfigured guild", slog.Any("error", err))
		return
	}
	log.InfoContext(ctx, "discord commands removed from an unconfigured guild", slog.Int("commands", len(cmds)))
}
