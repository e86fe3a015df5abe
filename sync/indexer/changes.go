package indexer

import (
	"context"

	"github.com/citahq/cita/rag"
)

// SyncChanges applies an incremental listing (a change feed such as Google Drive's changes
// API): changed items are added, re-indexed or have their groups updated exactly as in Sync, and
// removed ids that are indexed are deleted (unless the mass-deletion guard holds them back, as in
// Sync). Documents in neither list are left alone. Like Sync,
// it returns an error only when the index itself cannot be read or written (or ctx ends).
func (ix *Indexer) SyncChanges(ctx context.Context, source string, changed []Item, removed []string) (*Report, error) {
	return ix.pass(ctx, source, changed, false, func(known map[string]rag.DocumentState) []string {
		var gone []string
		for _, id := range removed {
			if _, ok := known[id]; ok {
				gone = append(gone, id)
			}
		}
		return gone
	})
}
