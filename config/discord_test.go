package config

import (
	"strings"
	"testing"
)

func TestDiscordConfigValidate(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("ab", 32)
	g := []string{"5"}
	tests := []struct {
		name    string
		cfg     DiscordConfig
		wantErr string // substring; "" means valid
	}{
		{"disabled without a token", DiscordConfig{}, ""},
		{"gateway", DiscordConfig{Token: "t", ApplicationID: "123", GuildIDs: g}, ""},
		{"http with key", DiscordConfig{Token: "t", ApplicationID: "123", GuildIDs: g, Mode: "http", PublicKey: key}, ""},
		{"member events on the gateway", DiscordConfig{Token: "t", ApplicationID: "123", GuildIDs: g, MemberEvents: true}, ""},
		{"member events in http mode", DiscordConfig{Token: "t", ApplicationID: "123", GuildIDs: g, Mode: "http", PublicKey: key, MemberEvents: true}, "discord.member_events"},
		{"http without key", DiscordConfig{Token: "t", ApplicationID: "123", Mode: "http"}, "discord.public_key"},
		{"no application id", DiscordConfig{Token: "t"}, "discord.application_id"},
		{"Bot prefix", DiscordConfig{Token: "Bot t", ApplicationID: "1"}, "discord.token"},
		{"unknown mode", DiscordConfig{Token: "t", ApplicationID: "1", Mode: "socket"}, "discord.mode"},
		{"no guild ids", DiscordConfig{Token: "t", ApplicationID: "1"}, "discord.guild_ids"},
		{"bad guild id", DiscordConfig{Token: "t", ApplicationID: "1", GuildIDs: []string{"acme"}}, "discord.guild_ids"},
		{"role without groups", DiscordConfig{Token: "t", ApplicationID: "1", RoleGroups: map[string][]string{"HR": nil}}, "discord.role_groups"},
		{"role by id", DiscordConfig{Token: "t", ApplicationID: "1", GuildIDs: g, RoleGroups: map[string][]string{"345678901234567890": {"hr"}, "@everyone": {"staff"}}}, ""},
		{"role by name", DiscordConfig{Token: "t", ApplicationID: "1", GuildIDs: g, RoleGroups: map[string][]string{"HR": {"hr"}}}, "Copy Role ID"},
		{"role by name, names allowed", DiscordConfig{Token: "t", ApplicationID: "1", GuildIDs: g, RoleGroups: map[string][]string{"HR": {"hr"}}, AllowRoleNames: true}, ""},
		{"channel by name", DiscordConfig{Token: "t", ApplicationID: "1", ChannelGroups: map[string][]string{"#general": {"x"}}}, "discord.channel_groups"},
		{"base url without scheme", DiscordConfig{Token: "t", ApplicationID: "1", APIBaseURL: "localhost:9000"}, "discord.api_base_url"},
		{"unknown threads", DiscordConfig{Token: "t", ApplicationID: "1", Threads: "always"}, "discord.threads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkErr(t, tt.cfg.Validate(), nonEmpty(tt.wantErr)...)
		})
	}
	if d := (DiscordConfig{}).WithDefaults(); d.Mode != "gateway" || d.Threads != "button" || len(d.DefaultGroups) != 1 || d.HTTPPath == "" {
		t.Errorf("defaults %+v", d)
	}
}
