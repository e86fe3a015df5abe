package main

import (
	"context"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// useReplicas opens database.read_urls, checks them once and from then on in the background,
// and routes the search arms of a.search through them (the commands that answer: ask, serve).
// Passage text, writes, the answer cache and memory stay on the primary. Without read URLs it
// does nothing. It returns an error, quoting no connection string, when one cannot be parsed;
// a replica that is down is no error (searches run on the primary meanwhile).
func (a *app) useReplicas(ctx context.Context, e *env) error {
	db := a.cfg.Database.WithDefaults()
	if len(db.ReadURLs) == 0 {
		return nil
	}
	reps, err := pgstore.OpenReplicas(db.ReadURLs, pgstore.PoolOptions{})
	if err != nil {
		return err
	}
	a.replicas = pgstore.NewReplicas(a.pool, reps, pgstore.ReplicaOptions{MaxLag: db.MaxReplicaLag, Logger: e.logger})
	a.replicas.Start(ctx)
	a.search = rag.NewHybrid(a.store.Routed(a.replicas), a.embedder, a.hybridOptions())
	return nil
}
