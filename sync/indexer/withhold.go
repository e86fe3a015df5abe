package indexer

import (
	"context"
	"log/slog"

	"github.com/citahq/cita/rag"
)

// withhold makes an item whose access is unknown readable by nobody: its indexed version keeps
// its chunks but loses its groups (at once, in the database) until a listing resolves its
// access; a new item is not indexed. The default is "no": an item with no group and no reason
// is withheld too.
func (ix *Indexer) withhold(ctx context.Context, source string, it Item, known map[string]rag.DocumentState, rep *Report) error {
	state, exists := known[it.ExternalID]
	reason := "no access group"
	if it.AccessErr != nil {
		reason = it.AccessErr.Error()
	}
	ix.logger.WarnContext(ctx, "document withheld: its access could not be resolved",
		slog.String("source", source), slog.String("document", it.ExternalID), slog.Bool("indexed", exists), slog.String("reason", reason))
	rep.Withheld = append(rep.Withheld, Withheld{ExternalID: it.ExternalID, Reason: reason})
	if !exists || state.AccessError == reason || ix.opts.DryRun {
		return nil
	}
	return ix.store.WithholdDocument(ctx, source, it.ExternalID, reason)
}
