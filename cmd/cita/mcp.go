package main

import (
	"log/slog"
	"net/url"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
)

// mcpServer wires the MCP server to the app's index, the answering pipeline, the token table and
// the configured access mapping with the identity groups (and OIDC issuer, when set). ask waits
// in the chat answer queue and is limited per caller like chat questions (limit, with the
// same defaults: bot.RateLimit.WithDefaults).
func (a *app) mcpServer(answerer mcpserver.Answerer, queue *bot.Queue, limit bot.RateLimit, identity identityGroups, logger *slog.Logger) *mcpserver.Server {
	limit = limit.WithDefaults() // the chat handler's rate, defaults as there
	mc := a.cfg.MCP.WithDefaults()
	opts := mcpserver.Options{
		Searcher:  a.search,
		Documents: a.store,
		Answerer:  answerer,
		Tokens:    pgtokens.New(a.pool),
		Access:    mcpAccess(mc, identity),
		Queue:     queue,
		AskLimit:  mcpserver.AskLimit{PerMinute: limit.PerMinute, Burst: limit.Burst},
		Logger:    logger,
	}
	if o := mc.OIDC; o.Enabled() {
		warnPlainHTTPIssuer(o, logger)
		opts.OIDC = mcpserver.NewOIDCVerifier(mcpserver.OIDCConfig{Issuer: o.Issuer, Audience: o.Audience,
			AllowedDomains: o.AllowedDomains, EmailClaim: o.EmailClaim})
	}
	return mcpserver.New(opts)
}

// mcpAccess is the access map of MCP callers: mcp.emails, mcp.domains and mcp.default_groups,
// and the identity groups (identity.email_groups, identity.google_groups) of the caller's
// e-mail, which an admin-issued token or the OIDC issuer vouches for.
func mcpAccess(mc config.MCPConfig, identity identityGroups) *bot.AccessMap {
	return identity.apply(bot.NewAccessMap(nil, nil, mc.Emails, mc.Domains, mc.DefaultGroups))
}

// warnPlainHTTPIssuer warns, at every start, when the OIDC issuer is reached over plain http:
// validation allows it only on a loopback address (a local identity provider), where nobody on
// the network can change the keys that sign the tokens, but a proxy or tunnel in front of that
// address can, and then anyone could sign tokens for any address.
func warnPlainHTTPIssuer(o config.OIDCConfig, logger *slog.Logger) {
	if u, err := url.Parse(o.Issuer); err == nil && u.Scheme == "http" {
		logger.Warn("mcp.oidc.issuer uses plain http: the keys that sign MCP tokens are fetched unencrypted; use https outside a local test",
			slog.String("issuer", o.Issuer))
	}
}
