-- +goose Up
-- A first, bulk index skips the per-statement term-statistics triggers (the loader sets
-- cita.bulk_load in its transactions) and rebuilds the statistics once at the end with
-- cita_rebuild_stats(): one aggregate over the table instead of millions of delta rows.

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

-- Recomputes every statistic from the chunks themselves. Writers wait (SHARE lock) while it runs.
-- +goose StatementBegin
CREATE FUNCTION cita_rebuild_stats() RETURNS void
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

-- +goose Down
-- Back to 0001's trigger functions, which know nothing of bulk loads.
DROP FUNCTION cita_rebuild_stats();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
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
