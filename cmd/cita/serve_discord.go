package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	"github.com/citahq/cita/config"
)

// discordOptions turns the configuration's discord section into the adapter's options: it
// validates dc, applies its defaults and decodes the public key, and warns (at every start)
// when roles may be mapped by name. It returns the validation error naming the field at fault.
func discordOptions(dc config.DiscordConfig, handler discord.Handler, logger *slog.Logger) (discord.Options, error) {
	if dc.AllowRoleNames && logger != nil {
		logger.Warn("discord.allow_role_names is on: roles are mapped by name too, and anyone with Manage Roles can create a role with a mapped name; map role ids instead",
			slog.Int("role_groups", len(dc.RoleGroups)))
	}
	if err := dc.Validate(); err != nil {
		return discord.Options{}, err
	}
	dc = dc.WithDefaults()
	var key ed25519.PublicKey
	if dc.PublicKey != "" {
		b, err := hex.DecodeString(dc.PublicKey)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return discord.Options{}, fmt.Errorf("discord.public_key: not 64 hex characters")
		}
		key = b
	}
	return discord.Options{
		Token: dc.Token, ApplicationID: dc.ApplicationID, PublicKey: key, Mode: dc.Mode,
		GuildIDs:       dc.GuildIDs,
		Access:         bot.NewAccessMap(nil, dc.RoleGroups, nil, nil, dc.DefaultGroups),
		RoleNames:      dc.AllowRoleNames,
		ChannelGroups:  dc.ChannelGroups,
		MessageContent: dc.MessageContent, MemberEvents: dc.MemberEvents, Threads: dc.Threads, APIBaseURL: dc.APIBaseURL, HTTPPath: dc.HTTPPath,
		Disclaimer: dc.Disclaimer, // display only: not the pipeline's, not in the answer cache
		Handler:    handler, Logger: logger,
	}, nil
}
