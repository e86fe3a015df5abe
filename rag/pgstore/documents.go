package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/citahq/cita/rag"
)

// tsConfig maps a language code to the PostgreSQL text search configuration that stems it.
func tsConfig(lang string) string {
	switch lang {
	case "es":
		return "spanish"
	case "en":
		return "english"
	default:
		return "simple"
	}
}

// ReplaceDocument inserts or replaces a document and all its chunks in one transaction, so a
// half-indexed document is never visible. Every chunk must carry an embedding of the store's
// model. A withheld document becomes readable again by doc.Groups. It returns the document's id
// and new version, or an error wrapping rag.ErrNoScope or rag.ErrInvalidGroup when the
// document's groups are empty or invalid.
func (s *Store) ReplaceDocument(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (id, version int64, err error) {
	groups, err := rag.CleanGroups(doc.Groups)
	if err != nil {
		return 0, 0, fmt.Errorf("index %s: %w", doc.ExternalID, err)
	}
	for i, c := range chunks {
		if len(c.Embedding) != s.model.Dimension {
			return 0, 0, fmt.Errorf("index %s: chunk %d has a %d-dimension embedding, the index for %s expects %d",
				doc.ExternalID, i, len(c.Embedding), s.model.Model, s.model.Dimension)
		}
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The commit does not wait for the disk: a crash can lose the last fraction of a second
		// of indexed documents, whole (never half), and the next sync indexes them again; waiting
		// for each document's flush cost indexing about a third of its time.
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return fmt.Errorf("index without waiting for the flush: %w", err)
		}
		v := doc.Validity
		err := tx.QueryRow(ctx, `
			INSERT INTO documents (source, external_id, title, url, owner, lang, updated_at, content_hash, groups, meta,
				valid_from, valid_until, superseded_by, superseded_on)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10, '{}'::jsonb),
				$11, $12, $13, CASE WHEN $14 THEN coalesce($15, now()) END)
			ON CONFLICT (source, external_id) DO UPDATE SET
				title = EXCLUDED.title, url = EXCLUDED.url, owner = EXCLUDED.owner, lang = EXCLUDED.lang,
				updated_at = EXCLUDED.updated_at, content_hash = EXCLUDED.content_hash, groups = EXCLUDED.groups,
				access_error = NULL, withheld_at = NULL,
				valid_from = EXCLUDED.valid_from, valid_until = EXCLUDED.valid_until, superseded_by = EXCLUDED.superseded_by,
				-- A mark without a day keeps the day the index first saw it.
				superseded_on = CASE WHEN $14 THEN coalesce($15, documents.superseded_on, now()) END,
				meta = EXCLUDED.meta, version = nextval('document_versions'), indexed_at = now()
			RETURNING id, version`,
			doc.Source, doc.ExternalID, doc.Title, doc.URL, doc.Owner, langCode(doc.Lang), doc.UpdatedAt,
			doc.ContentHash, groups, map[string]string{"fingerprint": doc.Fingerprint},
			timeArg(v.From), timeArg(v.Until), v.SupersededBy, v.Superseded || v.SupersededBy != "", timeArg(v.SupersededOn)).Scan(&id, &version)
		if err != nil {
			return fmt.Errorf("upsert document: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM chunks WHERE document_id = $1`, id); err != nil {
			return fmt.Errorf("delete old chunks: %w", err)
		}
		n := len(chunks)
		sections, locators, contents := make([]string, n), make([]string, n), make([]string, n)
		vectors := make([]pgvector.Vector, n)
		for i, c := range chunks {
			sections[i], locators[i], contents[i], vectors[i] = c.Section, c.Locator, c.Content, pgvector.NewVector(c.Embedding)
		}
		// One INSERT for all chunks: one statement-level trigger run for the BM25 statistics.
		_, err = tx.Exec(ctx, `
			INSERT INTO chunks (document_id, position, title, section, locator, content, ts_config, groups, embed_model, embedding, valid)
			SELECT $1, x.ord - 1, $2, x.section, x.locator, x.content, $3::regconfig, $4, $5, x.embedding,
				(SELECT cita_validity_window(d.valid_from, d.valid_until, d.superseded_on) FROM documents d WHERE d.id = $1)
			FROM unnest($6::text[], $7::text[], $8::text[], $9::public.vector[]) WITH ORDINALITY AS x(section, locator, content, embedding, ord)`,
			id, doc.Title, tsConfig(doc.Lang), groups, s.model.Model, sections, locators, contents, vectors)
		if err != nil {
			return fmt.Errorf("insert chunks: %w", err)
		}
		return touchChanged(ctx, tx, id)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("index %s: %w", doc.ExternalID, err)
	}
	return id, version, nil
}

// timeArg is t for a nullable timestamptz: nil when zero.
func timeArg(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func langCode(lang string) string {
	if lang == "es" || lang == "en" {
		return lang
	}
	return "simple"
}

// Documents returns the state of every document of a source, keyed by external id.
func (s *Store) Documents(ctx context.Context, source string) (map[string]rag.DocumentState, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, external_id, content_hash, groups, version, updated_at, coalesce(meta->>'fingerprint', ''),
			coalesce(access_error, '')
		FROM documents WHERE source = $1`, source)
	if err != nil {
		return nil, fmt.Errorf("list documents of %s: %w", source, err)
	}
	out := map[string]rag.DocumentState{}
	for rows.Next() {
		var d rag.DocumentState
		if err := rows.Scan(&d.ID, &d.ExternalID, &d.ContentHash, &d.Groups, &d.Version, &d.UpdatedAt, &d.Fingerprint, &d.AccessError); err != nil {
			return nil, fmt.Errorf("list documents of %s: %w", source, err)
		}
		out[d.ExternalID] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list documents of %s: %w", source, err)
	}
	return out, nil
}

// DeleteDocuments removes documents (and their chunks) of a source by external id and returns
// how many were removed.
func (s *Store) DeleteDocuments(ctx context.Context, source string, externalIDs []string) (int64, error) {
	if len(externalIDs) == 0 {
		return 0, nil
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM documents WHERE source = $1 AND external_id = ANY($2)`, source, externalIDs)
	if err != nil {
		return 0, fmt.Errorf("delete documents of %s: %w", source, err)
	}
	return tag.RowsAffected(), nil
}

// SetGroups changes a document's access groups on the document and all its chunks, without
// re-embedding, and bumps its version; a withheld document becomes readable again by groups. It
// returns an error wrapping rag.ErrNoScope for an empty group list and rag.ErrInvalidGroup for
// an invalid name.
func (s *Store) SetGroups(ctx context.Context, source, externalID string, groups []string) error {
	groups, err := rag.CleanGroups(groups)
	if err != nil {
		return fmt.Errorf("set groups of %s: %w", externalID, err)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `UPDATE documents SET groups = $3, access_error = NULL, withheld_at = NULL,
			version = nextval('document_versions')
			WHERE source = $1 AND external_id = $2 RETURNING id`, source, externalID, groups).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("set groups of %s: document not indexed", externalID)
		}
		if err != nil {
			return fmt.Errorf("set groups of %s: %w", externalID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE chunks SET groups = $2, withheld = false WHERE document_id = $1`, id, groups); err != nil {
			return fmt.Errorf("set groups of %s chunks: %w", externalID, err)
		}
		return touchChanged(ctx, tx, id)
	})
}

// touchChanged dates a document's change (documents.changed_at) by the last statement of the
// transaction that makes it, a moment before it commits, so that a cached "not found" whose
// search started after is known to have missed nothing of it (see Cache).
func touchChanged(ctx context.Context, tx pgx.Tx, id int64) error {
	if _, err := tx.Exec(ctx, `UPDATE documents SET changed_at = clock_timestamp() WHERE id = $1`, id); err != nil {
		return fmt.Errorf("date the change of document %d: %w", id, err)
	}
	return nil
}

// SetFingerprint records a document's new source fingerprint when its content hash showed the
// content unchanged (a touched file), so the next run need not read it again.
func (s *Store) SetFingerprint(ctx context.Context, source, externalID, fingerprint string) error {
	_, err := s.pool.Exec(ctx, `UPDATE documents SET meta = jsonb_set(meta, '{fingerprint}', to_jsonb($3::text))
		WHERE source = $1 AND external_id = $2`, source, externalID, fingerprint)
	if err != nil {
		return fmt.Errorf("set fingerprint of %s: %w", externalID, err)
	}
	return nil
}

// CompactStats folds the pending document-frequency deltas into lexeme_stats (the vocabulary the
// full-text arm's fuzzy expansion reads) and the per-class class_lexeme_stats, then moves the
// chunks' GIN indexes' pending lists into the indexes proper, then builds or drops the large
// access classes' own vector graphs (EnsureClassGraphs). Indexers call it after a run; it
// returns the number of lexemes folded (0 when another caller is compacting).
//
// A GIN index takes new entries into an unsorted pending list that every search reads whole
// until a vacuum flushes it: after indexing 100k chunks, the full-text index's list (289 pages)
// made its bitmap scan ten times slower and the access-group index's five times, for every
// question until autovacuum came.
func (s *Store) CompactStats(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT cita_compact_stats() + cita_compact_class_stats()`).Scan(&n); err != nil {
		return 0, fmt.Errorf("compact term statistics: %w", err)
	}
	if _, err := s.pool.Exec(ctx, flushPendingSQL); err != nil {
		return 0, fmt.Errorf("flush the chunks' GIN pending lists: %w", err)
	}
	if _, _, err := s.EnsureClassGraphs(ctx); err != nil {
		return 0, fmt.Errorf("compact term statistics: %w", err)
	}
	return n, nil
}

// flushPendingSQL flushes the pending list of every GIN index on chunks (full text, simple
// text, access groups).
const flushPendingSQL = `
SELECT gin_clean_pending_list(i.indexrelid)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'chunks'::regclass AND a.amname = 'gin'`

// Stats returns the number of documents and chunks in the index.
func (s *Store) Stats(ctx context.Context) (documents, chunks int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)`).Scan(&documents, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("count documents: %w", err)
	}
	return documents, chunks, nil
}
