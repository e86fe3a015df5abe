package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	"github.com/citahq/cita/config"
)

func TestDiscordOptionsFromConfig(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("ab", 32)
	dc := config.DiscordConfig{
		Token: "t", ApplicationID: "123", PublicKey: key, Mode: config.DiscordModeHTTP, GuildIDs: []string{"5"},
		RoleGroups: map[string][]string{"77": {"hr"}}, ChannelGroups: map[string][]string{"6": {"hr"}},
		MessageContent: true, Disclaimer: "Generated from our handbook.",
	}
	opts, err := discordOptions(dc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Mode != discord.ModeHTTP || opts.Threads != discord.ThreadsButton || opts.HTTPPath != "/discord/interactions" ||
		len(opts.PublicKey) != 32 || opts.PublicKey[0] != 0xab || opts.GuildIDs[0] != "5" || opts.ChannelGroups["6"][0] != "hr" ||
		!opts.MessageContent || opts.MemberEvents || opts.Disclaimer != "Generated from our handbook." {
		t.Errorf("options %+v", opts)
	}
	if got := opts.Access.Groups(bot.Identity{Roles: []string{"77"}}); strings.Join(got, ",") != "everyone,hr" || opts.RoleNames {
		t.Errorf("role 77 maps to %v (names %v), want the default group and hr, by id only", got, opts.RoleNames)
	}
	named := dc
	named.RoleGroups = map[string][]string{"HR": {"hr"}}
	if _, err := discordOptions(named, nil, nil); err == nil || !strings.Contains(err.Error(), "discord.role_groups") {
		t.Errorf("a role by name: error %v, want one naming discord.role_groups", err)
	}
	named.AllowRoleNames = true
	if opts, err := discordOptions(named, nil, slog.New(slog.DiscardHandler)); err != nil || !opts.RoleNames {
		t.Errorf("a role by name with allow_role_names: names %v, %v", opts.RoleNames, err)
	}
	dc.Mode, dc.MemberEvents = config.DiscordModeGateway, true
	if opts, err := discordOptions(dc, nil, nil); err != nil || !opts.MemberEvents || opts.Mode != discord.ModeGateway {
		t.Errorf("gateway with member events: %+v, %v", opts, err)
	}
	dc.Mode = "socket"
	if _, err := discordOptions(dc, nil, nil); err == nil || !strings.Contains(err.Error(), "discord.mode") {
		t.Errorf("bad mode: error %v, want one naming discord.mode", err)
	}
}

// TestAllowRoleNamesWarnsAtEveryStart is item 5 of issue 29: docs/discord.md promises a warning
// at every start with allow_role_names on; it was logged only when the configuration failed
// to validate.
func TestAllowRoleNamesWarnsAtEveryStart(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	dc := config.DiscordConfig{Token: "t", ApplicationID: "123", Mode: config.DiscordModeGateway, GuildIDs: []string{"5"},
		RoleGroups: map[string][]string{"HR": {"hr"}}, AllowRoleNames: true}
	if _, err := discordOptions(dc, nil, logger); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "allow_role_names") {
		t.Fatalf("no warning at start with allow_role_names on; logged %q", logs.String())
	}
}
