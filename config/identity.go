package config

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// IdentityConfig gives chat users access groups from who they are, with no hand-written map:
// the groups the Google Drive connector writes for the same people (see docs/identity.md).
type IdentityConfig struct {
	// EmailGroups gives a chat user whose platform vouches for their e-mail address (Slack, with
	// the users:read.email scope) the group of that address ("alice@example.com") and, unless
	// they are a guest, of its domain ("domain:example.com"). Default off. Discord gives bots no
	// e-mail addresses, so it has no identity groups.
	EmailGroups bool `yaml:"email_groups"`
	// GoogleGroups adds the Google Groups a verified address belongs to (directly or through
	// nested groups), each named by its e-mail address as Drive permissions name it.
	GoogleGroups GoogleGroupsConfig `yaml:"google_groups"`
}

// GoogleGroupsConfig reads group memberships from the Admin SDK Directory API into the
// database, where every replica reads them.
type GoogleGroupsConfig struct {
	Enabled bool `yaml:"enabled"`
	// CredentialsFile is a service-account key (JSON) with domain-wide delegation of the scopes
	// admin.directory.group.readonly and admin.directory.group.member.readonly; Subject is the
	// administrator it acts as (required with it). Or give TokenFile: an OAuth "authorized_user"
	// file of an administrator.
	CredentialsFile string `yaml:"credentials_file"`
	Subject         string `yaml:"subject"`
	TokenFile       string `yaml:"token_file"`
	// Customer is the Workspace account to list ("my_customer", the default, is the caller's);
	// Domain, when set, lists only that domain's groups.
	Customer string `yaml:"customer"`
	Domain   string `yaml:"domain"`
	// Refresh is how often the memberships are read again (default 6h; 5m to 168h). One replica
	// refreshes at a time.
	Refresh time.Duration `yaml:"refresh"`
	// MaxAge is how old the last complete read may be before its memberships stop counting
	// (default 24h, at least Refresh): failing refreshes narrow access rather than keep stale
	// memberships forever.
	MaxAge time.Duration `yaml:"max_age"`
	// Endpoint overrides the API base URL (proxies, tests).
	Endpoint string `yaml:"endpoint"`
}

// WithDefaults returns g with the default of every unset field.
func (g GoogleGroupsConfig) WithDefaults() GoogleGroupsConfig {
	if g.Customer == "" {
		g.Customer = "my_customer"
	}
	if g.Refresh == 0 {
		g.Refresh = 6 * time.Hour
	}
	if g.MaxAge == 0 {
		g.MaxAge = max(24*time.Hour, g.Refresh)
	}
	return g
}

func (c IdentityConfig) validate() []error {
	g := c.GoogleGroups
	if !g.Enabled {
		return nil
	}
	g = g.WithDefaults()
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("identity.google_groups.%s: "+format, append([]any{field}, args...)...))
	}
	switch {
	case (g.CredentialsFile == "") == (g.TokenFile == ""):
		errs = append(errs, errors.New("identity.google_groups: give exactly one of credentials_file (service-account key with domain-wide delegation) or token_file (an administrator's OAuth token)"))
	case g.CredentialsFile != "" && g.Subject == "":
		bad("subject", "required with credentials_file: the administrator the service account acts as (e.g. admin@example.com)")
	}
	if g.Refresh < 5*time.Minute || g.Refresh > 7*24*time.Hour {
		bad("refresh", "%s is out of range; use 5m to 168h (e.g. 6h)", g.Refresh)
	}
	if g.MaxAge < g.Refresh {
		bad("max_age", "%s is shorter than refresh (%s); give at least one refresh period (e.g. 24h)", g.MaxAge, g.Refresh)
	}
	if g.Endpoint != "" {
		if u, err := url.Parse(g.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("endpoint", "%q is not an http(s) URL", g.Endpoint)
		}
	}
	return errs
}
