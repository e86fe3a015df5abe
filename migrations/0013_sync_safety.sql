-- +goose Up
-- Sync safety: documents whose access cannot be resolved are withheld, mass deletions wait for a
-- confirmation, and a first bulk load records its state here so that a crash cannot leave the
-- term statistics wrong.

-- A withheld document: its access can no longer be resolved (a sidecar that does not parse, a
-- Drive file with no mappable permission), so it is readable by nobody until it resolves again.
-- Its groups are emptied on the document and on every chunk: every search path filters with
-- "groups && scope", which an empty array never satisfies, so no path (present or future) can
-- return it. Its chunks and embeddings stay, so access coming back costs no re-embedding.
ALTER TABLE documents ADD COLUMN access_error text,
    ADD COLUMN withheld_at timestamptz;
ALTER TABLE documents DROP CONSTRAINT documents_groups_check,
    ADD CONSTRAINT documents_groups_check CHECK ((cardinality(groups) > 0) <> (access_error IS NOT NULL));
ALTER TABLE chunks ADD COLUMN withheld boolean NOT NULL DEFAULT false;
ALTER TABLE chunks DROP CONSTRAINT chunks_groups_check,
    ADD CONSTRAINT chunks_groups_check CHECK ((cardinality(groups) > 0) <> withheld);
CREATE INDEX documents_withheld_idx ON documents (source) WHERE access_error IS NOT NULL;

-- Per pass: documents withheld, and deletions held back by the mass-deletion guard (the pass's
-- error says why and how to confirm them; complete is still true: the listing finished).
ALTER TABLE sync_runs ADD COLUMN withheld integer NOT NULL DEFAULT 0,
    ADD COLUMN deletes_blocked integer NOT NULL DEFAULT 0;
-- A pass's per-document problems: 'failed' (kept its previous version) or 'withheld'.
ALTER TABLE sync_failures ADD COLUMN kind text NOT NULL DEFAULT 'failed' CHECK (kind IN ('failed', 'withheld'));

-- A first, bulk load in progress or interrupted (at most one row per schema). The loader holds a
-- session advisory lock while it runs: a row whose lock is free belongs to a loader that died,
-- and the next process to open the index or sync rebuilds what it left undone.
-- stats_pending: the statistics triggers skip their deltas (for every writer, not only the
-- loader) and cita_rebuild_stats() must run; it is cleared in the rebuild's transaction.
-- The row goes once the model's vector index is built again.
CREATE TABLE bulk_load (
    only_row      boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    model         text NOT NULL,
    dimension     integer NOT NULL CHECK (dimension > 0),
    stats_pending boolean NOT NULL DEFAULT true,
    started_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        RETURN NULL;
    END IF;
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, count(*) FROM new_rows n, unnest(tsvector_to_array(n.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', count(*), coalesce(sum(length(tsv)), 0) FROM new_rows
    UNION ALL
    SELECT 's', count(*), coalesce(sum(length(tsv_simple)), 0) FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        RETURN NULL;
    END IF;
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, -count(*) FROM old_rows o, unnest(tsvector_to_array(o.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', -count(*), -coalesce(sum(length(tsv)), 0) FROM old_rows
    UNION ALL
    SELECT 's', -count(*), -coalesce(sum(length(tsv_simple)), 0) FROM old_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Recomputes every statistic from the chunks themselves. Writers wait (SHARE lock) while it runs,
-- and so does compaction (its advisory lock), which could otherwise fold deltas in between.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION cita_rebuild_stats() RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.cita_compact_stats'));
    LOCK TABLE chunks IN SHARE MODE;
    DELETE FROM lexeme_delta;
    DELETE FROM corpus_delta;
    DELETE FROM lexeme_stats;
    INSERT INTO lexeme_stats (lexeme, df)
    SELECT l, count(*) FROM chunks c, unnest(tsvector_to_array(c.tsv)) l GROUP BY l;
    UPDATE corpus_stats s SET chunks = a.n, total_len = a.len
    FROM (
        SELECT 't'::"char" AS kind, count(*) AS n, coalesce(sum(length(tsv)), 0) AS len FROM chunks
        UNION ALL
        SELECT 's'::"char", count(*), coalesce(sum(length(tsv_simple)), 0) FROM chunks
    ) a
    WHERE s.kind = a.kind;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- Withheld documents cannot satisfy the old constraints (they have no groups): they are removed,
-- and come back at the next sync once their access resolves.
DELETE FROM documents WHERE access_error IS NOT NULL;
DROP INDEX documents_withheld_idx;
ALTER TABLE chunks DROP CONSTRAINT chunks_groups_check,
    ADD CONSTRAINT chunks_groups_check CHECK (cardinality(groups) > 0);
ALTER TABLE chunks DROP COLUMN withheld;
ALTER TABLE documents DROP CONSTRAINT documents_groups_check,
    ADD CONSTRAINT documents_groups_check CHECK (cardinality(groups) > 0);
ALTER TABLE documents DROP COLUMN withheld_at,
    DROP COLUMN access_error;
ALTER TABLE sync_failures DROP COLUMN kind;
ALTER TABLE sync_runs DROP COLUMN deletes_blocked,
    DROP COLUMN withheld;

-- An interrupted bulk load's statistics are rebuilt before its state goes.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        PERFORM cita_rebuild_stats();
    END IF;
END
$$;
-- +goose StatementEnd
DROP TABLE bulk_load;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION cita_rebuild_stats() RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    LOCK TABLE chunks IN SHARE MODE;
    DELETE FROM lexeme_delta;
    DELETE FROM corpus_delta;
    DELETE FROM lexeme_stats;
    INSERT INTO lexeme_stats (lexeme, df)
    SELECT l, count(*) FROM chunks c, unnest(tsvector_to_array(c.tsv)) l GROUP BY l;
    UPDATE corpus_stats s SET chunks = a.n, total_len = a.len
    FROM (
        SELECT 't'::"char" AS kind, count(*) AS n, coalesce(sum(length(tsv)), 0) AS len FROM chunks
        UNION ALL
        SELECT 's'::"char", count(*), coalesce(sum(length(tsv_simple)), 0) FROM chunks
    ) a
    WHERE s.kind = a.kind;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF current_setting('cita.bulk_load', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, count(*) FROM new_rows n, unnest(tsvector_to_array(n.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', count(*), coalesce(sum(length(tsv)), 0) FROM new_rows
    UNION ALL
    SELECT 's', count(*), coalesce(sum(length(tsv_simple)), 0) FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF current_setting('cita.bulk_load', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, -count(*) FROM old_rows o, unnest(tsvector_to_array(o.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', -count(*), -coalesce(sum(length(tsv)), 0) FROM old_rows
    UNION ALL
    SELECT 's', -count(*), -coalesce(sum(length(tsv_simple)), 0) FROM old_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
