package indexer

import (
	"context"
	"errors"
	"log/slog"

	"github.com/citahq/cita/rag"
)

// accessProblem says why an item's access cannot be resolved, or "" when it can: the source's
// own reason (AccessErr), no group at all, or a group name that is not valid (rag.ValidateGroup:
// a name holding a separator could otherwise share a scope key, issue 12, finding 7).
func accessProblem(it Item) string {
	if it.AccessErr != nil {
		return it.AccessErr.Error()
	}
	_, err := rag.CleanGroups(it.Groups)
	switch {
	case errors.Is(err, rag.ErrNoScope):
		return "no access group"
	case err != nil:
		return "access groups: " + err.Error()
	}
	return ""
}

// withhold makes an item whose access is unknown (reason, from accessProblem) readable by
// nobody: its indexed version keeps its chunks but loses its groups (at once, in the database)
// until a listing resolves its access; a new item is not indexed. The default is "no": an item
// with no group and no reason is withheld too.
func (ix *Indexer) withhold(ctx context.Context, source string, it Item, reason string, known map[string]rag.DocumentState, rep *Report) error {
	state, exists := known[it.ExternalID]
	ix.logger.WarnContext(ctx, "document withheld: its access could not be resolved",
		slog.String("source", source), slog.String("document", it.ExternalID), slog.Bool("indexed", exists), slog.String("reason", reason))
	rep.Withheld = append(rep.Withheld, Withheld{ExternalID: it.ExternalID, Reason: reason})
	if !exists || state.AccessError == reason || ix.opts.DryRun {
		return nil
	}
	return ix.store.WithholdDocument(ctx, source, it.ExternalID, reason)
}
