package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SlackConfig configures the Slack adapter (see docs/slack.md). Secrets may be written as
// ${ENV} references, or left out and given as SLACK_BOT_TOKEN, SLACK_APP_TOKEN and
// SLACK_SIGNING_SECRET (see ApplyEnv). The adapter is off while BotToken is empty.
type SlackConfig struct {
	BotToken      string `yaml:"bot_token"`      // xoxb-...
	AppToken      string `yaml:"app_token"`      // xapp-..., Socket Mode only
	SigningSecret string `yaml:"signing_secret"` // HTTP mode only
	// Mode is "socket" (default: no public URL needed) or "http" (the Events API).
	Mode string `yaml:"mode"`
	// Path is the HTTP path prefix in http mode: events at <path>/events, interactivity at
	// <path>/interactions, the /cita command at <path>/commands. Default "/slack".
	Path string `yaml:"path"`
	// APIURL is the Web API base (GovSlack, an egress proxy, tests); it must end with "/".
	// Default https://slack.com/api/.
	APIURL string `yaml:"api_url"`

	// Access mapping: a Slack user's groups are the union of every entry that matches them, plus
	// DefaultGroups for members who are not guests.
	Users         map[string][]string `yaml:"users"`       // user id (U...) -> groups
	UserGroups    map[string][]string `yaml:"user_groups"` // user group id (S...) or handle -> groups
	Emails        map[string][]string `yaml:"emails"`      // e-mail address -> groups
	Domains       map[string][]string `yaml:"domains"`     // e-mail domain -> groups
	DefaultGroups []string            `yaml:"default_groups"`
	// ChannelGroups pins channels to groups, by channel id (C…, G…) or "#name" (looked up when
	// cita starts): a reply there uses at most these groups, and never more than every reader
	// of the channel may read.
	ChannelGroups map[string][]string `yaml:"channel_groups"`
	// ScopeCacheTTL bounds how long the workspace's people and user groups are reused when no
	// change was recorded (a lost user or user-group event); default 10m. Change events seen by
	// any replica refresh every replica at its next question; channel members are never cached.
	ScopeCacheTTL time.Duration `yaml:"scope_cache_ttl"`

	RateLimit SlackRateLimit `yaml:"rate_limit"`

	// SourceNotices posts a short notice in a thread when a document one of its answers cited
	// is changed or deleted by a sync pass (default true; false turns the notices off).
	SourceNotices *bool `yaml:"source_notices"`

	// Disclaimer is one line shown under every answer (and hedged reply) in Slack, never under
	// "I couldn't find this" or a reason; empty: none. Display only: it goes to the Slack
	// adapter, not to the pipeline or the answer cache. At most 300 characters.
	Disclaimer string `yaml:"disclaimer"`

	// SuggestedPrompts are offered in every new assistant thread (Slack's AI app view), at
	// most four; empty means the questions most asked in the workspace, by two people or more,
	// whose answers the user may read.
	SuggestedPrompts []string `yaml:"suggested_prompts"`
}

// NoticesOn reports whether source-change notices are posted in Slack threads.
func (s SlackConfig) NoticesOn() bool { return s.SourceNotices == nil || *s.SourceNotices }

// SlackRateLimit is the per-user question rate; zeros mean 6 a minute, bursts of 3.
type SlackRateLimit struct {
	PerMinute float64 `yaml:"per_minute"`
	Burst     int     `yaml:"burst"`
}

// Enabled reports whether the Slack adapter should run.
func (s SlackConfig) Enabled() bool { return s.BotToken != "" }

// ApplyEnv fills empty secrets from SLACK_BOT_TOKEN, SLACK_APP_TOKEN and SLACK_SIGNING_SECRET.
func (s *SlackConfig) ApplyEnv() {
	for dst, name := range map[*string]string{&s.BotToken: "SLACK_BOT_TOKEN", &s.AppToken: "SLACK_APP_TOKEN", &s.SigningSecret: "SLACK_SIGNING_SECRET"} {
		if *dst == "" {
			*dst = os.Getenv(name)
		}
	}
}

// WithDefaults returns s with the defaults of every unset field.
func (s SlackConfig) WithDefaults() SlackConfig {
	if s.Mode == "" {
		s.Mode = "socket"
	}
	if s.Path == "" {
		s.Path = "/slack"
	}
	if s.APIURL == "" {
		s.APIURL = "https://slack.com/api/"
	}
	if s.DefaultGroups == nil {
		s.DefaultGroups = []string{"everyone"}
	}
	if s.ScopeCacheTTL <= 0 {
		s.ScopeCacheTTL = 10 * time.Minute
	}
	return s
}

// Validate checks a Slack configuration; it returns nil when Slack is off (no bot_token) and
// otherwise an error naming each wrong field and the fix.
func (s SlackConfig) Validate() error {
	if !s.Enabled() {
		return nil
	}
	s = s.WithDefaults()
	var errs []error
	if !strings.HasPrefix(s.BotToken, "xoxb-") {
		errs = append(errs, errors.New("slack.bot_token: expected a bot token starting with xoxb- (OAuth & Permissions page of the app)"))
	}
	if err := checkDisclaimer("slack.disclaimer", s.Disclaimer); err != nil {
		errs = append(errs, err)
	}
	switch s.Mode {
	case "socket":
		if !strings.HasPrefix(s.AppToken, "xapp-") {
			errs = append(errs, errors.New("slack.app_token: socket mode needs an app-level token starting with xapp- with the connections:write scope (Basic Information > App-Level Tokens), or set mode: http"))
		}
	case "http":
		if s.SigningSecret == "" {
			errs = append(errs, errors.New("slack.signing_secret: http mode needs the app's signing secret (Basic Information > App Credentials)"))
		}
	default:
		errs = append(errs, fmt.Errorf("slack.mode: %q is not known; use socket or http", s.Mode))
	}
	if !strings.HasPrefix(s.Path, "/") {
		errs = append(errs, fmt.Errorf("slack.path: %q must start with /", s.Path))
	}
	if u, err := url.Parse(s.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("slack.api_url: %q is not an http(s) URL; e.g. https://slack.com/api/", s.APIURL))
	} else if !strings.HasSuffix(s.APIURL, "/") {
		errs = append(errs, fmt.Errorf("slack.api_url: %q must end with \"/\" (e.g. https://slack.com/api/)", s.APIURL))
	}
	if s.RateLimit.PerMinute < 0 || s.RateLimit.Burst < 0 {
		errs = append(errs, errors.New("slack.rate_limit: per_minute and burst must not be negative"))
	}
	for name, m := range map[string]map[string][]string{"users": s.Users, "user_groups": s.UserGroups, "emails": s.Emails, "domains": s.Domains} {
		for k, groups := range m {
			if len(groups) == 0 {
				errs = append(errs, fmt.Errorf("slack.%s[%q]: list at least one group", name, k))
			}
		}
	}
	for name, m := range map[string]map[string][]string{"users": s.Users, "user_groups": s.UserGroups, "emails": s.Emails, "domains": s.Domains} {
		errs = append(errs, checkGroupMap("slack."+name, m)...)
	}
	if err := checkGroups("slack.default_groups", s.DefaultGroups); err != nil {
		errs = append(errs, err)
	}
	for key, groups := range s.ChannelGroups {
		if !validChannelKey(key) {
			errs = append(errs, fmt.Errorf("slack.channel_groups[%q]: use a channel id (C0123ABCD) or a name with # (\"#people-ops\")", key))
		}
		if len(groups) == 0 || slices.ContainsFunc(groups, func(g string) bool { return strings.TrimSpace(g) == "" }) {
			errs = append(errs, fmt.Errorf("slack.channel_groups[%q]: list at least one group, none blank", key))
		} else if err := checkGroups(fmt.Sprintf("slack.channel_groups[%q]", key), groups); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// slackChannelID matches a public or private channel id.
var slackChannelID = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)

// validChannelKey reports whether key is a channel id or "#name" (no spaces, at most 80 runes).
func validChannelKey(key string) bool {
	if name, ok := strings.CutPrefix(key, "#"); ok {
		return name != "" && utf8.RuneCountInString(name) <= 80 && !strings.ContainsAny(name, " \t#,")
	}
	return slackChannelID.MatchString(key)
}
