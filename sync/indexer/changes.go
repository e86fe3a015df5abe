package indexer

import (
	"context"
	"time"
)

// SyncChanges applies an incremental listing (a change feed such as Google Drive's changes
// API): changed items are added, re-indexed or have their groups updated exactly as in Sync, and
// removed ids that are indexed are deleted (unless the mass-deletion guard holds them back, as in
// Sync). Documents in neither list are left alone. Like Sync,
// it returns an error only when the index itself cannot be read or written (or ctx ends).
func (ix *Indexer) SyncChanges(ctx context.Context, source string, changed []Item, removed []string) (*Report, error) {
	start := time.Now()
	rep := &Report{Listed: len(changed)}
	if err := ix.recoverBulkLoad(ctx); err != nil {
		return nil, err
	}
	known, err := ix.store.Documents(ctx, source)
	if err != nil {
		return nil, err
	}
	rep.Known = len(known)
	if err := ix.indexItems(ctx, source, changed, known, rep); err != nil {
		return rep, err
	}
	var gone []string
	for _, id := range removed {
		if _, ok := known[id]; ok {
			gone = append(gone, id)
		}
	}
	if err := ix.deleteGone(ctx, source, gone, known, rep); err != nil {
		return rep, err
	}
	if err := ix.compact(ctx, rep); err != nil {
		return rep, err
	}
	rep.Took = time.Since(start)
	return rep, nil
}
