-- +goose Up
-- Sync safety: a first bulk load records its state here so that a crash cannot leave the term
-- statistics wrong.

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
