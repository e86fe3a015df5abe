package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/citahq/cita/internal/snowflake"
)

// Discord transport modes.
const (
	DiscordModeGateway = "gateway" // a bot session on Discord's gateway (websocket); the default
	DiscordModeHTTP    = "http"    // Discord POSTs interactions to cita's HTTP endpoint
)

// Discord thread behaviours for answers posted in a guild channel.
const (
	DiscordThreadsButton = "button" // the answer carries a "Continue in thread" button; the default
	DiscordThreadsAuto   = "auto"   // a thread is opened from every visible answer
	DiscordThreadsOff    = "off"    // no threads are opened by the bot
)

// DiscordConfig configures the Discord adapter (see docs/discord.md). The zero value disables it:
// the adapter runs only when Token is set.
type DiscordConfig struct {
	// Token is the bot token from the Developer Portal; use ${DISCORD_BOT_TOKEN}.
	Token string `yaml:"token"`
	// ApplicationID is the application's id (General Information > Application ID).
	ApplicationID string `yaml:"application_id"`
	// PublicKey is the application's Ed25519 public key in hex; required in http mode.
	PublicKey string `yaml:"public_key"`
	// Mode is "gateway" (default) or "http".
	Mode string `yaml:"mode"`
	// GuildIDs are the servers cita answers in (required): /ask is registered in each, every
	// other server is refused, and a DM is answered only for a member of one of them, with
	// their roles there.
	GuildIDs []string `yaml:"guild_ids"`
	// RoleGroups maps a role, by its id, to access groups ("@everyone" names the everyone
	// role). Role names are refused unless AllowRoleNames is set.
	RoleGroups map[string][]string `yaml:"role_groups"`
	// AllowRoleNames lets role_groups name roles (case-insensitive) instead of giving their ids.
	// Unsafe: anyone with Manage Roles can create a role with a mapped name (or named like a
	// mapped id) and give it to themselves; `cita serve` warns at start. Default false.
	AllowRoleNames bool `yaml:"allow_role_names"`
	// DefaultGroups are every member's groups, on top of their roles' groups; default
	// ["everyone"]. Set it to [] explicitly with a mapped role for everyone to lock the bot down.
	DefaultGroups []string `yaml:"default_groups"`
	// ChannelGroups overrides the audience of a channel: visible answers there use exactly these
	// groups instead of the ones computed from the channel's permissions.
	ChannelGroups map[string][]string `yaml:"channel_groups"`
	// MessageContent asks the gateway for the privileged MESSAGE_CONTENT intent, so plain
	// messages in the bot's threads are follow-ups. Enable it in the Developer Portal (Bot >
	// Privileged Gateway Intents) first, or the gateway refuses the connection. Without it,
	// `/ask` inside a thread still continues the thread's conversation.
	MessageContent bool `yaml:"message_content"`
	// MemberEvents asks the gateway for the privileged GUILD_MEMBERS intent (Server Members
	// Intent in the Developer Portal; enable it there first), so a member's role change or
	// departure reaches every replica at once instead of within a minute. Gateway mode only.
	MemberEvents bool `yaml:"member_events"`
	// Threads is "button" (default), "auto" or "off".
	Threads string `yaml:"threads"`
	// APIBaseURL replaces https://discord.com for REST calls (egress proxies, tests).
	APIBaseURL string `yaml:"api_base_url"`
	// HTTPPath is where the interactions endpoint is mounted in http mode; default
	// "/discord/interactions".
	HTTPPath string `yaml:"http_path"`
	// SourceNotices posts a short notice where a conversation continues when a document one of
	// its answers cited is changed or deleted by a sync pass (default true; false turns the
	// notices off).
	SourceNotices *bool `yaml:"source_notices"`
	// Disclaimer is one line shown under every answer (and hedged reply) in Discord, in both
	// layouts, never under "I couldn't find this" or a reason; empty: none. Display only: it
	// goes to the Discord adapter, not to the pipeline or the answer cache. At most 300
	// characters.
	Disclaimer string `yaml:"disclaimer"`
}

// NoticesOn reports whether source-change notices are posted in Discord conversations.
func (d DiscordConfig) NoticesOn() bool { return d.SourceNotices == nil || *d.SourceNotices }

// Enabled reports whether the Discord adapter should run.
func (d DiscordConfig) Enabled() bool { return d.Token != "" }

// WithDefaults returns d with its defaults applied: mode gateway, threads button, default groups
// ["everyone"] when the field was left out, and the interactions path.
func (d DiscordConfig) WithDefaults() DiscordConfig {
	if d.Mode == "" {
		d.Mode = DiscordModeGateway
	}
	if d.Threads == "" {
		d.Threads = DiscordThreadsButton
	}
	if d.DefaultGroups == nil {
		d.DefaultGroups = []string{"everyone"}
	}
	if d.HTTPPath == "" {
		d.HTTPPath = "/discord/interactions"
	}
	return d
}

// Validate checks an enabled Discord configuration (defaults applied or not); its error names
// each wrong field and the fix. A disabled configuration (no token) is valid.
func (d DiscordConfig) Validate() error {
	if !d.Enabled() {
		return nil
	}
	d = d.WithDefaults()
	var errs []error
	if strings.HasPrefix(d.Token, "Bot ") {
		errs = append(errs, errors.New("discord.token: give the bare token without the \"Bot \" prefix"))
	}
	if err := checkDisclaimer("discord.disclaimer", d.Disclaimer); err != nil {
		errs = append(errs, err)
	}
	if d.ApplicationID == "" || !snowflake.Valid(d.ApplicationID) {
		errs = append(errs, fmt.Errorf("discord.application_id: %q is not an application id; copy it from the Developer Portal (General Information)", d.ApplicationID))
	}
	switch d.Mode {
	case DiscordModeGateway:
	case DiscordModeHTTP:
		if key, err := hex.DecodeString(d.PublicKey); err != nil || len(key) != 32 {
			errs = append(errs, errors.New("discord.public_key: required in http mode: the 64 hex characters of the application's public key"))
		}
		if d.MemberEvents {
			errs = append(errs, errors.New("discord.member_events: needs the gateway (mode: gateway); in http mode no event arrives, and members are read as docs/discord.md says"))
		}
	default:
		errs = append(errs, fmt.Errorf("discord.mode: %q is not known; use gateway or http", d.Mode))
	}
	switch d.Threads {
	case DiscordThreadsButton, DiscordThreadsAuto, DiscordThreadsOff:
	default:
		errs = append(errs, fmt.Errorf("discord.threads: %q is not known; use button, auto or off", d.Threads))
	}
	if len(d.GuildIDs) == 0 {
		errs = append(errs, errors.New("discord.guild_ids: list the servers cita answers in (enable Developer Mode, then Copy Server ID); cita refuses every other server, and DMs from people in none of them"))
	}
	for _, id := range d.GuildIDs {
		if !snowflake.Valid(id) {
			errs = append(errs, fmt.Errorf("discord.guild_ids: %q is not a guild id (a number); enable Developer Mode and use Copy Server ID", id))
		}
	}
	for role, groups := range d.RoleGroups {
		if strings.TrimSpace(role) == "" || len(groups) == 0 {
			errs = append(errs, fmt.Errorf("discord.role_groups: role %q needs a name or id and at least one group", role))
		} else if !snowflake.Valid(role) && role != "@everyone" && !d.AllowRoleNames {
			errs = append(errs, fmt.Errorf("discord.role_groups: %q is a role name, which anyone with Manage Roles can copy; "+
				"use the role's id (Developer Mode, then right-click the role, Copy Role ID), or set discord.allow_role_names: true to accept the risk", role))
		}
	}
	for ch, groups := range d.ChannelGroups {
		if !snowflake.Valid(ch) || len(groups) == 0 {
			errs = append(errs, fmt.Errorf("discord.channel_groups: %q needs a channel id (a number) and at least one group", ch))
		}
	}
	errs = append(errs, checkGroupMap("discord.role_groups", d.RoleGroups)...)
	errs = append(errs, checkGroupMap("discord.channel_groups", d.ChannelGroups)...)
	if err := checkGroups("discord.default_groups", d.DefaultGroups); err != nil {
		errs = append(errs, err)
	}
	if d.APIBaseURL != "" {
		if u, err := url.Parse(d.APIBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("discord.api_base_url: %q is not an http(s) URL such as https://discord.com", d.APIBaseURL))
		}
	}
	if !strings.HasPrefix(d.HTTPPath, "/") {
		errs = append(errs, fmt.Errorf("discord.http_path: %q must start with /", d.HTTPPath))
	}
	return errors.Join(errs...)
}
