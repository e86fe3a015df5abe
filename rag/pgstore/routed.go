package pgstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/rag"
)

// RoutedStore is the store as the hybrid searcher uses it (rag.ArmStore) with read replicas:
// the two search arms run on a healthy replica, and LoadHits, which reads the passages' text,
// titles and access groups for the final hits, runs on the primary. So a document deleted, or
// narrowed to other groups, on the primary is never answered from a replica that has not
// replayed the change yet: its chunks may still rank there, but they are not found when the
// hits are loaded, and are dropped. Create it with Store.Routed.
type RoutedStore struct {
	store    *Store
	replicas *Replicas
}

// Routed returns the store with its search arms routed by replicas.
func (s *Store) Routed(replicas *Replicas) *RoutedStore {
	return &RoutedStore{store: s, replicas: replicas}
}

// SearchVector implements rag.ArmStore on a replica (see Store.SearchVector). When it fails
// there, the replica is marked down until its next check and the primary answers.
func (rs *RoutedStore) SearchVector(ctx context.Context, vec []float32, scope rag.Scope, k int) ([]rag.ArmHit, error) {
	var hits []rag.ArmHit
	err := rs.onReplica(ctx, "vector", func(s *Store) (err error) {
		hits, err = s.SearchVector(ctx, vec, scope, k)
		return err
	})
	return hits, err
}

// SearchFTS implements rag.ArmStore on a replica (see Store.SearchFTS), falling back to the
// primary as SearchVector does.
func (rs *RoutedStore) SearchFTS(ctx context.Context, query rag.FTSQuery, scope rag.Scope, k int) ([]rag.ArmHit, []string, error) {
	var hits []rag.ArmHit
	var terms []string
	err := rs.onReplica(ctx, "fts", func(s *Store) (err error) {
		hits, terms, err = s.SearchFTS(ctx, query, scope, k)
		return err
	})
	return hits, terms, err
}

// LoadHits implements rag.ArmStore on the primary (see Store.LoadHits and RoutedStore).
func (rs *RoutedStore) LoadHits(ctx context.Context, ids []int64, scope rag.Scope) ([]rag.Hit, error) {
	return rs.store.LoadHits(ctx, ids, scope)
}

// onReplica runs search on the store over the pool the router picks; when a replica fails it,
// for a reason other than the caller's (its context, an empty scope), it runs again on the
// primary.
func (rs *RoutedStore) onReplica(ctx context.Context, arm string, search func(*Store) error) error {
	pool, rep := rs.replicas.pick()
	if rep == nil {
		return search(rs.store)
	}
	err := search(rs.store.onPool(pool))
	if err == nil || ctx.Err() != nil || errors.Is(err, rag.ErrNoScope) {
		return err
	}
	rep.failed()
	rs.replicas.primaryReads.Add(1)
	rs.replicas.logger.WarnContext(ctx, "search failed on a read replica; the primary answers",
		slog.String("replica", rep.name), slog.String("arm", arm), slog.String("error", err.Error()))
	return search(rs.store)
}

// onPool returns a copy of the store that reads through pool. The copy shares everything else;
// Store must stay copyable (no mutex by value).
func (s *Store) onPool(pool *pgxpool.Pool) *Store {
	c := *s
	c.pool = pool
	return &c
}
