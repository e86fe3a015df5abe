package discord

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
)

// Transport modes.
const (
	ModeGateway = "gateway" // a bot session on Discord's gateway (websocket)
	ModeHTTP    = "http"    // Discord POSTs interactions to HTTPHandler
)

// Thread behaviours for answers posted visibly in a guild channel.
const (
	ThreadsButton = "button" // the answer carries a "Continue in thread" button
	ThreadsAuto   = "auto"   // a thread is opened from every visible answer
	ThreadsOff    = "off"    // the bot opens no threads
)

// Options configures an Adapter. cmd/cita builds it from the configuration file
// (config.DiscordConfig); this package does not read configuration.
type Options struct {
	// Token is the bare bot token (no "Bot " prefix).
	Token string
	// ApplicationID is the application's id; commands are registered under it.
	ApplicationID string
	// PublicKey verifies the HTTP interactions endpoint's signatures; required in ModeHTTP.
	PublicKey ed25519.PublicKey
	// Mode is ModeGateway (default) or ModeHTTP.
	Mode string
	// GuildIDs are the guilds cita serves (required): /ask is registered in each, interactions
	// and messages from any other guild are refused, and a DM is answered only for a member of
	// one of them.
	GuildIDs []string
	// Access maps role ids and names (and every member's default groups) to access groups.
	Access *bot.AccessMap
	// RoleNames lets Access map roles by name (case-insensitive) as well as by id. Off by
	// default: anyone with Manage Roles can create a role with a mapped name.
	RoleNames bool
	// ChannelGroups fixes the audience of a channel (by id) to these groups.
	ChannelGroups map[string][]string
	// MessageContent asks the gateway for the privileged MESSAGE_CONTENT intent, so plain
	// messages in the bot's threads and DMs are questions.
	MessageContent bool
	// MemberEvents asks the gateway for the privileged GUILD_MEMBERS intent, so a member's role
	// change or departure reaches every replica at once instead of within a minute (it matters
	// for members let into a channel one by one, the owner, and DM askers).
	MemberEvents bool
	// Threads is ThreadsButton (default), ThreadsAuto or ThreadsOff.
	Threads string
	// APIBaseURL replaces https://discord.com for REST calls (egress proxies, tests).
	APIBaseURL string
	// HTTPPath is where Run mounts the interactions endpoint in ModeHTTP; default
	// "/discord/interactions".
	HTTPPath string
	// Disclaimer, when set, is one line shown under every answer and hedged reply, in both
	// layouts (layoutOf), never under "I couldn't find this" or a reason. It is display only:
	// not part of the answer, its record or the answer cache.
	Disclaimer string
	// Gaps, when set, offers "Tell the document owners" under declined and hedged replies
	// asked where not everyone in the guild could see them, and records the shares.
	Gaps bot.GapStore

	// Transport, when set, makes the REST calls (cmd/cita times them for /metrics); nil means
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Trace, when set, is told when each visible step of a reply happens, measured from the
	// moment the interaction or message reached cita: "deferred" (Discord shows "thinking"),
	// "typing" (a thread follow-up), "final" (the answer is shown).
	Trace func(step string, sinceReceived time.Duration)

	// Handler answers turns; a *bot.Handler. Required.
	Handler Handler
	Logger  *slog.Logger
	// Now is the clock for signature windows and timings; nil means time.Now.
	Now func() time.Time
}

// withDefaults returns o with its defaults applied.
func (o Options) withDefaults() Options {
	if o.Mode == "" {
		o.Mode = ModeGateway
	}
	if o.Threads == "" {
		o.Threads = ThreadsButton
	}
	if o.HTTPPath == "" {
		o.HTTPPath = "/discord/interactions"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// validate checks o (defaults applied); its error names each wrong field.
func (o Options) validate() error {
	var errs []error
	if o.Token == "" || strings.HasPrefix(o.Token, "Bot ") {
		errs = append(errs, errors.New("Token: give the bare bot token"))
	}
	if o.ApplicationID == "" {
		errs = append(errs, errors.New("ApplicationID is required"))
	}
	if len(o.GuildIDs) == 0 {
		errs = append(errs, errors.New("GuildIDs: list the guilds to serve; every other guild and their members' DMs are refused"))
	}
	if o.Handler == nil {
		errs = append(errs, errors.New("Handler is required"))
	}
	if o.Access == nil {
		errs = append(errs, errors.New("Access is required"))
	}
	switch o.Mode {
	case ModeGateway:
	case ModeHTTP:
		if len(o.PublicKey) != ed25519.PublicKeySize {
			errs = append(errs, errors.New("PublicKey: required in http mode (32 bytes)"))
		}
	default:
		errs = append(errs, fmt.Errorf("Mode %q: use %s or %s", o.Mode, ModeGateway, ModeHTTP))
	}
	switch o.Threads {
	case ThreadsButton, ThreadsAuto, ThreadsOff:
	default:
		errs = append(errs, fmt.Errorf("Threads %q: use %s, %s or %s", o.Threads, ThreadsButton, ThreadsAuto, ThreadsOff))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("discord adapter options: %w", err)
	}
	return nil
}
