package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// MCPConfig configures the MCP server of `cita serve` (see docs/mcp.md): the knowledge base as
// tools (search, get_document, ask) for AI assistants and IDEs, at /mcp on the serve listener.
// Callers authenticate with personal tokens (`cita tokens create`) or, when OIDC is set, with
// bearer tokens of that issuer. Every call runs under the caller's access groups, resolved from
// the caller's e-mail like a chat identity.
type MCPConfig struct {
	// Enabled mounts /mcp; default off.
	Enabled bool `yaml:"enabled"`
	// Access mapping: a caller's groups are the union of every entry matching its e-mail, plus
	// DefaultGroups. A token created with --groups narrows these groups; it never adds to them.
	Emails  map[string][]string `yaml:"emails"`  // e-mail address -> groups
	Domains map[string][]string `yaml:"domains"` // e-mail domain -> groups
	// DefaultGroups are every caller's groups on top of the mapped ones; default ["everyone"].
	// Set it to [] to give callers only mapped groups.
	DefaultGroups []string `yaml:"default_groups"`
	// OIDC, when its issuer is set, also accepts ID tokens (JWTs) of that issuer.
	OIDC OIDCConfig `yaml:"oidc"`
}

// OIDCConfig accepts bearer JWTs signed by an OpenID Connect issuer, found by discovery
// (<issuer>/.well-known/openid-configuration and its JWKS).
type OIDCConfig struct {
	// Issuer is the iss the tokens carry, e.g. https://accounts.google.com or
	// https://login.example.com/realms/staff.
	Issuer string `yaml:"issuer"`
	// Audience is the aud the tokens must carry: the client id registered for cita.
	Audience string `yaml:"audience"`
	// AllowedDomains are the e-mail domains whose holders are members: a token for any other
	// e-mail is refused. Required, because multi-tenant issuers sign tokens for anyone.
	AllowedDomains []string `yaml:"allowed_domains"`
	// EmailClaim names the claim holding the e-mail; default "email".
	EmailClaim string `yaml:"email_claim"`
}

// Enabled reports whether OIDC tokens are accepted.
func (o OIDCConfig) Enabled() bool { return o.Issuer != "" }

// WithDefaults returns m with the defaults of every unset field.
func (m MCPConfig) WithDefaults() MCPConfig {
	if m.DefaultGroups == nil {
		m.DefaultGroups = []string{"everyone"}
	}
	if m.OIDC.EmailClaim == "" {
		m.OIDC.EmailClaim = "email"
	}
	return m
}

// Validate checks an MCP configuration; it returns nil when MCP is off, and otherwise an error
// naming each wrong field and the fix.
func (m MCPConfig) Validate() error {
	if !m.Enabled {
		return nil
	}
	var errs []error
	for name, mm := range map[string]map[string][]string{"emails": m.Emails, "domains": m.Domains} {
		for k, groups := range mm {
			if strings.TrimSpace(k) == "" || len(groups) == 0 {
				errs = append(errs, fmt.Errorf("mcp.%s[%q]: give a key and at least one group", name, k))
			}
		}
		errs = append(errs, checkGroupMap("mcp."+name, mm)...)
	}
	if err := checkGroups("mcp.default_groups", m.DefaultGroups); err != nil {
		errs = append(errs, err)
	}
	if o := m.OIDC; o.Enabled() {
		if err := validateIssuer(o.Issuer); err != nil {
			errs = append(errs, err)
		}
		if o.Audience == "" {
			errs = append(errs, errors.New("mcp.oidc.audience: required with an issuer: the client id the tokens are issued for"))
		}
		if len(o.AllowedDomains) == 0 {
			errs = append(errs, errors.New("mcp.oidc.allowed_domains: required with an issuer: list your organisation's e-mail domains (e.g. [example.com]), since an issuer may sign tokens for anyone"))
		}
		for _, d := range o.AllowedDomains {
			if d = strings.TrimSpace(d); d == "" || strings.ContainsAny(d, "@/ ") {
				errs = append(errs, fmt.Errorf("mcp.oidc.allowed_domains: %q is not a domain such as example.com", d))
			}
		}
	} else if m.OIDC.Audience != "" || len(m.OIDC.AllowedDomains) > 0 {
		errs = append(errs, errors.New("mcp.oidc.issuer: set the issuer URL, or remove mcp.oidc"))
	}
	return errors.Join(errs...)
}

// validateIssuer requires https, except for a loopback host (a local identity provider).
func validateIssuer(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("mcp.oidc.issuer: %q is not a URL such as https://accounts.google.com", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return fmt.Errorf("mcp.oidc.issuer: %q must use https (plain http only on a loopback address)", raw)
}
