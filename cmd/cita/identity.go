package main

import (
	"context"
	"log/slog"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/sync/directory"
)

// withIdentityGroups applies the identity configuration to m: e-mail groups, and with Google
// Groups on, the directory snapshot in the database. It returns the refresher that keeps the
// snapshot current (nil when Google Groups are off), or an error when its credentials cannot be
// read.
func withIdentityGroups(ctx context.Context, a *app, m *bot.AccessMap, logger *slog.Logger) (*directory.Refresher, error) {
	id := a.cfg.Identity
	m.EmailGroups = id.EmailGroups
	if !id.GoogleGroups.Enabled {
		return nil, nil
	}
	gg := id.GoogleGroups.WithDefaults()
	lister, err := directory.NewGoogle(ctx, gg, logger)
	if err != nil {
		return nil, err
	}
	store := directory.NewStore(a.pool, gg.MaxAge)
	m.Directory = store
	return directory.NewRefresher(lister, store, gg.Refresh, logger), nil
}
