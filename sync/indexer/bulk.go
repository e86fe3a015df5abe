package indexer

import "context"

// BulkLoader is implemented by stores that load a first index faster by building the vector
// index once at the end, and that keep the load's state where a crash cannot lose it.
type BulkLoader interface {
	HasVectors(ctx context.Context) (bool, error)
	// BeginBulkLoad returns the function ending the load, or nil when no bulk load started
	// (another one is running, or vectors exist): the caller then writes row by row.
	BeginBulkLoad(ctx context.Context) (end func(context.Context) error, err error)
	// RecoverBulkLoad finishes a bulk load whose process died, reporting whether there was one.
	RecoverBulkLoad(ctx context.Context) (bool, error)
}

// beginBulkLoad starts a bulk load when the store can, the run lists at least BulkThreshold
// items, and the index holds no vector of the model yet. It returns the function ending the
// load, or nil when the run writes row by row.
func (ix *Indexer) beginBulkLoad(ctx context.Context, items int) (end func(context.Context) error, err error) {
	bl, ok := ix.store.(BulkLoader)
	if !ok || items < ix.opts.BulkThreshold || ix.opts.DryRun {
		return nil, nil
	}
	has, err := bl.HasVectors(ctx)
	if err != nil || has {
		return nil, err
	}
	return bl.BeginBulkLoad(ctx)
}

// recoverBulkLoad finishes a bulk load that a dead process left, before this run writes.
func (ix *Indexer) recoverBulkLoad(ctx context.Context) error {
	bl, ok := ix.store.(BulkLoader)
	if !ok || ix.opts.DryRun {
		return nil
	}
	recovered, err := bl.RecoverBulkLoad(ctx)
	if err != nil {
		return err
	}
	if recovered {
		ix.logger.WarnContext(ctx, "finished a bulk load interrupted by a crash: term statistics and vector index rebuilt")
	}
	return nil
}
