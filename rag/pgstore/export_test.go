package pgstore

import (
	"context"

	"github.com/citahq/cita/rag"
)

// SearchFTSReads is SearchFTS, returning also how many candidates the arm read.
func (s *Store) SearchFTSReads(ctx context.Context, query rag.FTSQuery, scope rag.Scope, k int) ([]rag.ArmHit, int, error) {
	hits, _, read, err := s.searchFTS(ctx, query, scope, k)
	return hits, read, err
}

// Exhaustive returns a copy of the store whose full-text arm reads every candidate of every
// word at once, without bounds or budget: the truth the pruned arm is held to.
func (s *Store) Exhaustive() *Store {
	c := *s
	c.ftsExhaustive = true
	c.FTSCandidateBudget = 1 << 40
	return &c
}
