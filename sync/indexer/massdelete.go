package indexer

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/citahq/cita/rag"
)

// DefaultMaxDeleteFraction is the share of a source's documents one pass may delete without a
// confirmation when Options.MaxDeleteFraction is nil (config's max_delete_fraction default).
const DefaultMaxDeleteFraction = 0.2

// MassDeleteFloor is how many documents a pass may always delete, whatever the fraction, unless
// they are all of the source's documents: below it ordinary churn in a small source (one file of
// three) is not a mass deletion.
const MassDeleteFloor = 3

// massDeletion reports whether deleting n of a source's total documents needs a confirmation:
// deleting all of them always does (an unmounted share, a revoked share, a wrong prefix all look
// like that), deleting up to MassDeleteFloor never does otherwise, and in between it does when n
// exceeds fraction of total.
func massDeletion(n, total int, fraction float64) bool {
	switch {
	case n == 0:
		return false
	case n >= total:
		return true
	case n <= MassDeleteFloor:
		return false
	default:
		return float64(n) > fraction*float64(total)
	}
}

func (ix *Indexer) maxDeleteFraction() float64 {
	if ix.opts.MaxDeleteFraction == nil {
		return DefaultMaxDeleteFraction
	}
	return *ix.opts.MaxDeleteFraction
}

// deleteGone removes the given documents of a source whose indexed documents are known (sorted,
// deduplicated; a dry run only counts them) and adds them to Report.Changes. A mass deletion
// without AllowMassDelete deletes nothing: the count goes to Report.DeletesBlocked, and the
// caller must say why (syncrun logs it at error level, records it and returns ErrMassDelete).
func (ix *Indexer) deleteGone(ctx context.Context, source string, gone []string, known map[string]rag.DocumentState, rep *Report) error {
	slices.Sort(gone)
	gone = slices.Compact(gone)
	total := len(known)
	if massDeletion(len(gone), total, ix.maxDeleteFraction()) && !ix.opts.AllowMassDelete {
		rep.DeletesBlocked = len(gone)
		ix.logger.DebugContext(ctx, "mass deletion held back", slog.Int("would_delete", len(gone)), slog.Int("documents", total),
			slog.String("first", gone[0]))
		return ix.withholdHeldBack(ctx, source, gone, known)
	}
	if len(gone) == 0 || ix.opts.DryRun {
		rep.Deleted = len(gone)
		return nil
	}
	n, err := ix.store.DeleteDocuments(ctx, source, gone)
	if err != nil {
		return err
	}
	rep.Deleted = int(n)
	now := time.Now()
	for _, id := range gone {
		rep.Changes = append(rep.Changes, Change{DocumentID: known[id].ID, Kind: ChangeDeleted, At: now})
	}
	return nil
}

// HeldBackReason is the access error of a document the mass-deletion guard held back: the source
// no longer lists it (deleted, moved, or unshared from cita's account), so nobody may read it
// until a listing holds it again (its groups come back then, without re-embedding) or a confirmed
// pass deletes it.
const HeldBackReason = "missing from its source's listing; deletion held back by the mass-deletion guard"

// withholdHeldBack withholds the documents a mass deletion would have removed: kept, so that a
// listing that lost them by mistake costs no re-index, but readable by nobody, since a file that
// vanished because it was unshared must not stay readable by its old groups. A withhold that
// cannot be written stops the run.
func (ix *Indexer) withholdHeldBack(ctx context.Context, source string, gone []string, known map[string]rag.DocumentState) error {
	if ix.opts.DryRun {
		return nil
	}
	for _, id := range gone {
		if known[id].AccessError == HeldBackReason {
			continue
		}
		if err := ix.store.WithholdDocument(ctx, source, id, HeldBackReason); err != nil {
			return err
		}
	}
	return nil
}
