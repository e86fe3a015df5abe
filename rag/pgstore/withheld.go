package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// WithholdDocument makes a document readable by nobody, at once, because its access can no
// longer be resolved: its groups are emptied on the document and on every chunk (so neither
// search arm, LoadHits, nor anything else filtering by groups returns it) and its version is
// bumped (so no cached answer citing it is served again). Its chunks and embeddings stay: when
// its access resolves, SetGroups or ReplaceDocument makes it readable again without
// re-embedding. reason is kept (documents.access_error) for `cita sources` and the logs. It
// returns an error when reason is empty, the document is not indexed, or the write fails.
func (s *Store) WithholdDocument(ctx context.Context, source, externalID, reason string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return fmt.Errorf("withhold %s: a reason is required", externalID)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `UPDATE documents SET groups = '{}', access_error = $3,
			withheld_at = coalesce(withheld_at, now()), version = nextval('document_versions')
			WHERE source = $1 AND external_id = $2 RETURNING id`, source, externalID, reason).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("withhold %s: document not indexed", externalID)
		}
		if err != nil {
			return fmt.Errorf("withhold %s: %w", externalID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE chunks SET groups = '{}', withheld = true WHERE document_id = $1`, id); err != nil {
			return fmt.Errorf("withhold %s chunks: %w", externalID, err)
		}
		return nil
	})
}

// WithheldDocument is a document readable by nobody until its access resolves.
type WithheldDocument struct {
	ExternalID string
	Reason     string
	Since      time.Time
}

// Withheld returns a source's withheld documents, oldest first. It returns an error when the
// database cannot be read.
func (s *Store) Withheld(ctx context.Context, source string) ([]WithheldDocument, error) {
	rows, err := s.pool.Query(ctx, `SELECT external_id, access_error, withheld_at FROM documents
		WHERE source = $1 AND access_error IS NOT NULL ORDER BY withheld_at, external_id`, source)
	if err != nil {
		return nil, fmt.Errorf("list withheld documents of %s: %w", source, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WithheldDocument, error) {
		var w WithheldDocument
		return w, row.Scan(&w.ExternalID, &w.Reason, &w.Since)
	})
	if err != nil {
		return nil, fmt.Errorf("list withheld documents of %s: %w", source, err)
	}
	return out, nil
}
