package main

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/directory"
)

// identityGroups is the identity configuration as access maps take it: e-mail groups, and the
// directory snapshot (Google Groups) in the database when it is on.
type identityGroups struct {
	emailGroups bool
	directory   *directory.Store // nil when Google Groups are off
}

// identityGroupsOf reads the identity configuration; the directory is read from pool. It does
// no I/O.
func identityGroupsOf(id config.IdentityConfig, pool *pgxpool.Pool) identityGroups {
	ig := identityGroups{emailGroups: id.EmailGroups}
	if id.GoogleGroups.Enabled {
		ig.directory = directory.NewStore(pool, id.GoogleGroups.WithDefaults().MaxAge)
	}
	return ig
}

// apply gives m the identity groups and returns it. Every access map that resolves e-mail
// identities (Slack, MCP) gets them alike.
func (ig identityGroups) apply(m *bot.AccessMap) *bot.AccessMap {
	m.EmailGroups = ig.emailGroups
	if ig.directory != nil { // never a typed nil in the interface
		m.Directory = ig.directory
	}
	return m
}

// refresher returns what keeps the directory snapshot current (nil when Google Groups are off),
// or an error when its credentials cannot be read.
func (ig identityGroups) refresher(ctx context.Context, id config.IdentityConfig, logger *slog.Logger) (*directory.Refresher, error) {
	if ig.directory == nil {
		return nil, nil
	}
	gg := id.GoogleGroups.WithDefaults()
	lister, err := directory.NewGoogle(ctx, gg, logger)
	if err != nil {
		return nil, err
	}
	return directory.NewRefresher(lister, ig.directory, gg.Refresh, logger), nil
}
