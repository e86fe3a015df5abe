package main

import (
	"log/slog"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
)

// mcpServer wires the MCP server to the app's index, the answering pipeline, the token table and
// the configured access mapping (and OIDC issuer, when set). ask waits in the chat answer queue
// and is limited per caller like chat questions (limit).
func (a *app) mcpServer(answerer mcpserver.Answerer, queue *bot.Queue, limit bot.RateLimit, logger *slog.Logger) *mcpserver.Server {
	if limit.PerMinute <= 0 {
		limit = bot.DefaultRateLimit
	}
	mc := a.cfg.MCP.WithDefaults()
	opts := mcpserver.Options{
		Searcher:  a.search,
		Documents: a.store,
		Answerer:  answerer,
		Tokens:    pgtokens.New(a.pool),
		Access:    bot.NewAccessMap(nil, nil, mc.Emails, mc.Domains, mc.DefaultGroups),
		Queue:     queue,
		AskLimit:  mcpserver.AskLimit{PerMinute: limit.PerMinute, Burst: limit.Burst},
		Logger:    logger,
	}
	if o := mc.OIDC; o.Enabled() {
		opts.OIDC = mcpserver.NewOIDCVerifier(mcpserver.OIDCConfig{Issuer: o.Issuer, Audience: o.Audience,
			AllowedDomains: o.AllowedDomains, EmailClaim: o.EmailClaim})
	}
	return mcpserver.New(opts)
}
