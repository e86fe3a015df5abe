package discord

import (
	"context"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/rag"
)

// clickerScope returns the groups of whoever clicked a button, as an /ask from them there
// would: in a server, their roles there (as the interaction says, fresh); in a DM with the bot,
// the union of their groups in every configured server (dmScope, whose errors it returns), never
// the default groups alone.
func (a *Adapter) clickerScope(ctx context.Context, i *discordgo.Interaction, userID string, roles []string) (rag.Scope, error) {
	if i.GuildID == "" {
		return a.audience.dmScope(ctx, userID)
	}
	return a.audience.askerScope(ctx, i.GuildID, userID, roles), nil
}
