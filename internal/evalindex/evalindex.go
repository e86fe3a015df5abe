// Package evalindex indexes evaluation corpora (rag/eval's neutral documents, or a folder of
// files) through the same ingestion path as `cita index`, so rag/eval stays free of ingestion.
package evalindex

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
	"github.com/citahq/cita/sync/indexer"
)

// Documents indexes docs under source with the given groups. It returns an error when any
// document fails, naming the first: an evaluation on a partly indexed corpus would mislead.
func Documents(ctx context.Context, store indexer.Store, emb rag.Embedder, logger *slog.Logger, source string, docs []eval.Document, groups []string) (*indexer.Report, error) {
	items := make([]indexer.Item, len(docs))
	for i, d := range docs {
		body := []byte(d.Text)
		items[i] = indexer.Item{
			ExternalID: d.ID, Name: d.Name, Groups: groups,
			Open: func(context.Context) ([]byte, error) { return body, nil },
		}
	}
	return run(ctx, store, emb, logger, source, items, true)
}

// Folder indexes every supported file under root with the given groups, as `cita index` does.
func Folder(ctx context.Context, store indexer.Store, emb rag.Embedder, logger *slog.Logger, source, root string, groups []string) (*indexer.Report, error) {
	items, complete, err := indexer.ListFolder(ctx, root, func(string) []string { return groups })
	if err != nil {
		return nil, err
	}
	if !complete {
		return nil, fmt.Errorf("part of %s could not be read", root)
	}
	return run(ctx, store, emb, logger, source, items, complete)
}

func run(ctx context.Context, store indexer.Store, emb rag.Embedder, logger *slog.Logger, source string, items []indexer.Item, complete bool) (*indexer.Report, error) {
	rep, err := indexer.New(store, emb, indexer.Options{}, logger).Sync(ctx, source, items, complete)
	if err != nil {
		return nil, fmt.Errorf("index the evaluation corpus: %w", err)
	}
	if len(rep.Failed) > 0 {
		return rep, fmt.Errorf("index the evaluation corpus: %d documents failed, first: %s: %v", len(rep.Failed), rep.Failed[0].ExternalID, rep.Failed[0].Err)
	}
	return rep, nil
}
