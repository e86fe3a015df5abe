package indexer

import (
	"context"
	"log/slog"
	"slices"

	"github.com/citahq/cita/rag"
)

// AccessChangedReason is the access error of a document whose groups changed so that nobody who
// could read its indexed version may read its new one: it is withheld until the new version
// indexes (ReplaceDocument then gives it its new groups).
const AccessChangedReason = "access changed; withheld until its new version indexes"

// narrowFirst applies an item's changed access to its indexed version before its new content
// is read, since reading, extracting, embedding or writing it may fail and leave the old version
// readable by groups the source no longer gives (a document unshared from everyone in the same
// edit that made it too large to export). The indexed version keeps only the groups that may
// read both versions; when none may, it is withheld. A pure widening changes nothing here: the
// new groups arrive with the new version. An access-only change (same content) is left to
// prepare, which sets the new groups in one write.
func (ix *Indexer) narrowFirst(ctx context.Context, source string, it Item, known map[string]rag.DocumentState) error {
	state, exists := known[it.ExternalID]
	if !exists || ix.opts.DryRun || state.AccessError != "" {
		return nil // new, or already readable by nobody until it indexes
	}
	if fp := effectiveFingerprint(it); fp != "" && fp == state.Fingerprint {
		return nil // content unchanged: prepare applies the groups at once
	}
	groups, err := rag.CleanGroups(it.Groups)
	if err != nil || slices.Equal(groups, state.Groups) {
		return nil // invalid groups are withheld before this is called
	}
	both := intersect(state.Groups, groups)
	if slices.Equal(both, state.Groups) {
		return nil
	}
	ix.logger.InfoContext(ctx, "access narrowed before re-index", slog.String("source", source), slog.String("document", it.ExternalID),
		slog.Any("old_groups", state.Groups), slog.Any("new_groups", groups), slog.Any("applied", both))
	if len(both) == 0 {
		return ix.store.WithholdDocument(ctx, source, it.ExternalID, AccessChangedReason)
	}
	return ix.store.SetGroups(ctx, source, it.ExternalID, both)
}

// intersect returns the groups in both sorted lists, sorted.
func intersect(a, b []string) []string {
	var out []string
	for _, g := range a {
		if _, ok := slices.BinarySearch(b, g); ok {
			out = append(out, g)
		}
	}
	return out
}

// validityKey is the suffix an item's source validity adds to its fingerprint and content hash
// ("" when the source sets none): a rule that starts or stops marking an item re-indexes it.
func validityKey(it Item) string {
	key := it.Validity.Key()
	if key == "" {
		return ""
	}
	return "+v" + contentHash([]byte(key))[:16]
}

// effectiveFingerprint is the fingerprint recorded for an item: the source's, with the validity
// suffix; "" when the source gives none (its content must be read).
func effectiveFingerprint(it Item) string {
	if it.Fingerprint == "" {
		return ""
	}
	return it.Fingerprint + validityKey(it)
}
