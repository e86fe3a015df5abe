-- +goose Up
-- Issue 16, speed at scale.
-- 1. The end of a first (bulk) load computed the full-text statistics twice, each time
-- unnesting every chunk's vector: once for the global ones (cita_rebuild_stats) and once per
-- access class (cita_rebuild_class_stats). cita_rebuild_all_stats reads each access class's
-- chunks once with ts_stat (in C, through the groups index), and sums the classes for the
-- global statistics, adding only the chunks no class holds (a withheld document's, with no
-- groups). The results are the same as the two rebuilds'.
-- +goose StatementBegin
CREATE FUNCTION cita_rebuild_all_stats() RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
DECLARE
    class record;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.cita_compact_class_stats'));
    LOCK TABLE chunks IN SHARE MODE;
    DELETE FROM class_lexeme_delta;
    DELETE FROM class_corpus_delta;
    DELETE FROM class_lexeme_stats;
    DELETE FROM class_corpus_stats;
    DELETE FROM lexeme_delta;
    DELETE FROM corpus_delta;
    DELETE FROM lexeme_stats;
    INSERT INTO access_classes (groups)
    SELECT DISTINCT groups FROM chunks WHERE cardinality(groups) > 0 ORDER BY groups ON CONFLICT (groups) DO NOTHING;
    FOR class IN SELECT id, groups FROM access_classes ORDER BY id LOOP
        INSERT INTO class_lexeme_stats (lexeme, class_id, df)
        SELECT word, class.id, ndoc FROM ts_stat(format('SELECT tsv FROM chunks WHERE groups = %L::text[]', class.groups));
    END LOOP;
    INSERT INTO lexeme_stats (lexeme, df)
    SELECT lexeme, sum(df) FROM (
        SELECT lexeme, df FROM class_lexeme_stats
        UNION ALL
        SELECT word, ndoc FROM ts_stat('SELECT tsv FROM chunks WHERE cardinality(groups) = 0')
    ) x GROUP BY lexeme;
    INSERT INTO class_corpus_stats (class_id, kind, chunks, total_len)
    SELECT c.id, 't', count(*), coalesce(sum(length(ch.tsv)), 0) FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id
    UNION ALL
    SELECT c.id, 's', count(*), coalesce(sum(length(ch.tsv_simple)), 0) FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id;
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

-- 2. The full-text arm reads every candidate's stemmed vector (tsv): out of line in TOAST (a
-- chunk's row holds its embedding, its text and two vectors, past the 2 kB at which PostgreSQL
-- moves values out), each read cost two TOAST index lookups, and reading them was most of the
-- arm's time (about 2-3x the in-line read). MAIN keeps it in the row (the text and the simple
-- vector, read only for the hits and for names, move out instead). Rows written from now on.
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE MAIN;

-- +goose Down
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE EXTENDED;
DROP FUNCTION cita_rebuild_all_stats();
