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

// commands is the full set cita registers; a bulk overwrite makes registration idempotent and
// removes commands an older version left behind.
func commands() []*discordgo.ApplicationCommand {
	dm := true
	return []*discordgo.ApplicationCommand{{
		Name:         askCommand,
		Description:  "Ask a question about the organisation's documents; the answer cites its sources.",
		DMPermission: &dm,
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionString, Name: optQuestion, Description: "Your question", Required: true, MaxLength: 1000},
			{Type: discordgo.ApplicationCommandOptionBoolean, Name: optPrivate, Description: "Only you see the answer, from the documents you may read"},
		},
	}}
}

// RegisterCommands overwrites the application's commands with /ask: in each configured guild
// (visible at once), or globally when no guild is configured (global commands also work in DMs).
// It returns the first registration error.
func (a *Adapter) RegisterCommands(ctx context.Context) error {
	targets := a.opts.GuildIDs
	if len(targets) == 0 {
		targets = []string{""} // global
	}
	for _, guildID := range targets {
		created, err := a.session.ApplicationCommandBulkOverwrite(a.opts.ApplicationID, guildID, commands(), discordgo.WithContext(ctx))
		if err != nil {
			where := "globally"
			if guildID != "" {
				where = "in guild " + guildID
			}
			return fmt.Errorf("register /%s %s: %w", askCommand, where, err)
		}
		a.logger.InfoContext(ctx, "discord commands registered", slog.String("guild_id", guildID), slog.Int("commands", len(created)))
	}
	return nil
}
