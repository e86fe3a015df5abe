package discord

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"
)

// restTimeout bounds one REST call to Discord, retries for 429 included.
const restTimeout = 30 * time.Second

// newSession returns a discordgo session for token whose REST calls go through transport (nil:
// http.DefaultTransport), to baseURL when it is set. discordgo computes its Endpoint* strings
// when the package loads, so changing discordgo.EndpointDiscord later does nothing; the
// session's http.Client rewrites the scheme and host of every request instead. Its warnings and
// errors go to the library logger (SetLibraryLogger). It returns an error for an unparsable
// baseURL.
func newSession(token, baseURL string, intents discordgo.Intent, transport http.RoundTripper) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("create discord session: %w", err)
	}
	s.ShouldRetryOnRateLimit = true // sleep retry_after on a 429, then retry in the same bucket
	s.MaxRestRetries = 3
	s.Identify.Intents = intents
	s.LogLevel = discordgo.LogWarning
	if transport == nil {
		transport = http.DefaultTransport
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("discord api base url %q: not an absolute URL", baseURL)
		}
		transport = &rewriteTransport{scheme: u.Scheme, host: u.Host, next: transport}
	}
	s.Client = &http.Client{Timeout: restTimeout, Transport: transport}
	return s, nil
}

// gatewayIntents are the events the bot needs: interactions come without intents; GUILDS
// carries role, channel and thread changes; guild messages and DMs carry thread follow-ups, and
// MESSAGE_CONTENT (privileged, enabled in the Developer Portal) gives their text; GUILD_MEMBERS
// (privileged too) tells of members joining, leaving and changing roles.
func gatewayIntents(messageContent, memberEvents bool) discordgo.Intent {
	i := discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages
	if messageContent {
		i |= discordgo.IntentsMessageContent
	}
	if memberEvents {
		i |= discordgo.IntentsGuildMembers
	}
	return i
}

// rewriteTransport sends every request to another scheme and host, keeping path and query.
type rewriteTransport struct {
	scheme, host string
	next         http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.scheme, t.host, t.host
	return t.next.RoundTrip(r)
}
