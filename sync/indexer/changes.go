package indexer

import (
	"context"
	"log/slog"
	"slices"
	"time"
)

// SyncChanges applies an incremental listing (a change feed such as Google Drive's changes
// API): changed items are added, re-indexed or have their groups updated exactly as in Sync, and
// removed ids that are indexed are deleted. Documents in neither list are left alone. Like Sync,
// it returns an error only when the index itself cannot be read or written (or ctx ends).
func (ix *Indexer) SyncChanges(ctx context.Context, source string, changed []Item, removed []string) (*Report, error) {
	start := time.Now()
	rep := &Report{Listed: len(changed)}
	known, err := ix.store.Documents(ctx, source)
	if err != nil {
		return nil, err
	}
	var batch []prepared
	batchTexts := 0
	total := len(changed)
	for i, it := range changed {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		p, err := ix.prepare(ctx, source, it, known, rep)
		if err != nil {
			rep.Failed = append(rep.Failed, Failure{ExternalID: it.ExternalID, Err: err})
			ix.logger.WarnContext(ctx, "document skipped", slog.String("source", source), slog.String("document", it.ExternalID), slog.String("error", err.Error()))
		} else if p != nil {
			batch = append(batch, *p)
			batchTexts += len(p.chunks)
			if batchTexts >= ix.opts.EmbedBatch {
				if err := ix.writeBatch(ctx, source, batch, rep); err != nil {
					return rep, err
				}
				batch, batchTexts = batch[:0], 0
			}
		}
		if ix.opts.Progress != nil {
			ix.opts.Progress(i+1, total, it.ExternalID)
		}
	}
	if err := ix.writeBatch(ctx, source, batch, rep); err != nil {
		return rep, err
	}
	var gone []string
	for _, id := range removed {
		if _, ok := known[id]; ok {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	gone = slices.Compact(gone)
	if len(gone) > 0 && !ix.opts.DryRun {
		n, err := ix.store.DeleteDocuments(ctx, source, gone)
		if err != nil {
			return rep, err
		}
		rep.Deleted = int(n)
	} else {
		rep.Deleted = len(gone)
	}
	rep.Took = time.Since(start)
	return rep, nil
}
